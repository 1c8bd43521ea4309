/**
 * `inbox dead-letters|redrive|replay --project P --agent A …`: an agent's dead letters, their redrive (all, or
 * `--ids 1,2`) and the replay of acknowledged items created in a window (`--since T [--until T]`), on the cloud's
 * database; each redrive and replay is audited (actor `cli`). A cloud serving the same database hands the items
 * out at its agents' next polls.
 *
 * @module
 */
import { timestampInput } from "../../core/contract/mod.ts";
import { auditRecord, CLI_ACTOR } from "../audit/mod.ts";
import { createProjectService } from "../projects/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { CommandError, type CommandOutput, withStorage } from "./project_commands.ts";
import { printable } from "./terminal_text.ts";
import type { CommandLine } from "./usage.ts";

const SUBCOMMANDS = "inbox takes: dead-letters|redrive|replay --project PROJECT_ID --agent AGENT_ID";

/**
 * Runs `inbox SUBCOMMAND`.
 *
 * @param target The database.
 * @param words The words after `inbox`.
 * @param line The parsed command line (`--project`, `--agent`, `--ids`, `--since`, `--until`).
 * @returns What to print.
 * @throws {CommandError} `USAGE` for a bad command line, `NOT_FOUND` for an unknown project.
 */
export async function runInboxCommand(
  target: DatabaseTarget,
  words: string[],
  line: CommandLine,
): Promise<CommandOutput> {
  const [sub] = words;
  if (words.length !== 1 || !["dead-letters", "redrive", "replay"].includes(sub)) {
    throw new CommandError("USAGE", SUBCOMMANDS);
  }
  const projectId = line.project?.trim();
  const agentId = line.agent;
  if (!projectId || !agentId) {
    throw new CommandError("USAGE", `inbox ${sub} needs --project PROJECT_ID and --agent AGENT_ID`);
  }
  const ids = line.ids === undefined ? undefined : inboxIds(line.ids);
  const window = sub === "replay" ? replayWindow(line) : undefined;
  return await withStorage(target, async (storage) => {
    if (!await createProjectService(storage).find(projectId)) {
      throw new CommandError("NOT_FOUND", `No project ${projectId}`);
    }
    const now = PLATFORM.now();
    const at = new Date(now).toISOString();
    if (sub === "dead-letters") {
      const items = await storage.inbox.deadLetters(projectId, agentId, at);
      const lines = items.map((d) =>
        `${d.inboxId}  ${d.eventId}  ${d.type}  ${d.deliveries}  ${d.deadAt}  ${d.reason}`
      );
      return {
        json: { items },
        text: printable(items.length ? lines.join("\n") : `No dead letters in ${agentId}'s inbox.`),
      };
    }
    if (sub === "redrive") {
      const detail = { agentId, inboxIds: ids ?? "all" };
      const audit = auditRecord(CLI_ACTOR, { projectId, action: "inbox.redrive", target: agentId, detail, at: now });
      const redriven = await storage.inbox.redrive(projectId, agentId, ids, audit);
      return { json: { ok: true, redriven }, text: printable(`Redrove ${redriven} dead letters of ${agentId}.`) };
    }
    const { since, until } = window!;
    const detail = { agentId, since, until: until ?? null };
    const audit = auditRecord(CLI_ACTOR, { projectId, action: "inbox.replay", target: agentId, detail, at: now });
    const replayed = await storage.inbox.replay(projectId, agentId, since, until ?? at, at, audit);
    return { json: { ok: true, replayed }, text: printable(`Replayed ${replayed} acknowledged items of ${agentId}.`) };
  });
}

function inboxIds(given: string): number[] {
  const ids = given.split(",").map((s) => Number(s.trim()));
  if (ids.length === 0 || ids.length > 500 || ids.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
    throw new CommandError("USAGE", "--ids takes up to 500 inbox ids, comma-separated");
  }
  return [...new Set(ids)];
}

function replayWindow(line: CommandLine): { since: string; until?: string } {
  const parse = (flag: string, value: string) => {
    const parsed = timestampInput.safeParse(value);
    if (!parsed.success) throw new CommandError("USAGE", `${flag} must be an ISO 8601 time`);
    return parsed.data;
  };
  if (line.since === undefined) throw new CommandError("USAGE", "inbox replay needs --since TIME");
  return {
    since: parse("--since", line.since),
    ...line.until === undefined ? {} : { until: parse("--until", line.until) },
  };
}
