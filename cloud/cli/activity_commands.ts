/**
 * `activity list` (a project's activity, newest first, a page at a time) and `activity export` (its records as
 * NDJSON on stdout, oldest first, read from the database as stdout takes them), on the cloud's database.
 *
 * @module
 */
import { type ActivityQuery, activityQuery, createActivityService } from "../activity/mod.ts";
import { createProjectService } from "../projects/mod.ts";
import type { CloudRepositories } from "../open_cloud_storage.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { CommandError, type CommandOutput, withStorage } from "./project_commands.ts";
import type { CommandLine } from "./usage.ts";
import { printable } from "./terminal_text.ts";

/** The flags of a list or an export as a query (`--key`, `--user`, `--since`, `--until`, `--cursor`, `--limit`). */
function queryOf(line: CommandLine): Omit<ActivityQuery, "who"> {
  const parsed = activityQuery.safeParse({
    keyId: line.key,
    userId: line.user,
    since: line.since,
    until: line.until,
    cursor: line.cursor,
    limit: line.limit,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = { keyId: "key", userId: "user" }[String(issue.path[0])] ?? String(issue.path[0]);
    throw new CommandError("USAGE", `--${flag}: ${issue.message}`);
  }
  return parsed.data;
}

/** The project of `--project`, which must exist. */
async function projectOf(storage: CloudRepositories, line: CommandLine, command: string): Promise<string> {
  if (!line.project) throw new CommandError("USAGE", `activity ${command} needs --project PROJECT_ID`);
  if (await createProjectService(storage).find(line.project) === null) {
    throw new CommandError("NOT_FOUND", `No project ${line.project}`);
  }
  return line.project;
}

/**
 * Lists a project's activity, newest first: one page, and the `--cursor` of the next.
 *
 * @param target The database.
 * @param line The parsed command line.
 * @returns What to print.
 */
export async function runActivityList(target: DatabaseTarget, line: CommandLine): Promise<CommandOutput> {
  const query = queryOf(line);
  return await withStorage(target, async (storage) => {
    const projectId = await projectOf(storage, line, "list");
    const page = await createActivityService(storage).list(projectId, query);
    const lines = page.activity.map((r) =>
      printable(
        `${r.at}  ${r.keyId}  ${r.userId}  ${r.intent}  ${r.via}  ${r.outcome}${r.code ? ` ${r.code}` : ""}  ` +
          `${r.status}  ${r.ms} ms${r.client ? `  ${r.client}` : ""}`,
      )
    );
    if (page.nextCursor !== null) lines.push(`More: --cursor ${page.nextCursor}`);
    return { json: { ...page }, text: lines.length ? lines.join("\n") : "No activity." };
  });
}

/**
 * Writes a project's activity as NDJSON (one record a line, oldest first), `--since` and `--until` its range.
 *
 * @param target The database.
 * @param line The parsed command line.
 * @param write Writes a chunk and settles once the output took it (the export reads no further page before).
 * @returns How many bytes were written.
 */
export async function runActivityExport(
  target: DatabaseTarget,
  line: CommandLine,
  write: (chunk: Uint8Array) => Promise<void>,
): Promise<number> {
  const { since, until } = queryOf({ ...line, limit: undefined, cursor: undefined });
  return await withStorage(target, async (storage) => {
    const projectId = await projectOf(storage, line, "export");
    let bytes = 0;
    const reader = createActivityService(storage).export(projectId, { since, until }).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return bytes;
      await write(value);
      bytes += value.length;
    }
  });
}
