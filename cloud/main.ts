/**
 * The cloud's command line: `serve`, `project create|rotate-secret|list|policy`,
 * `keys revoke`, `audit list`, `activity list|export`, `admin`, `migrate`, `backup`, `restore`, `--version`. The same under `node cloud/main.ts`, `deno run -A cloud/main.ts`,
 * `bun cloud/main.ts` and the compiled `dist/svc-cloud`.
 *
 * @module
 */
import "../core/runtime/mod.ts"; // first: Node < 22 gets one line, nothing else runs
import process from "node:process";
import { databaseTarget } from "./cli/database_url.ts";
import { CommandError, type CommandOutput, runMigrate, runProjectCommand } from "./cli/project_commands.ts";
import { runServe, serveOptions } from "./cli/serve.ts";
import { PACKAGE_NAME, PACKAGE_VERSION, redactSecrets } from "../core/contract/mod.ts";
import { runAdminCommand } from "./cli/admin_commands.ts";
import { readPasswordFromStdin } from "./cli/read_password.ts";
import { runAuditList, runPolicyCommand } from "./cli/policy_commands.ts";
import { runInboxCommand } from "./cli/inbox_commands.ts";
import { runKeysCommand } from "./cli/keys_commands.ts";
import { runActivityExport, runActivityList } from "./cli/activity_commands.ts";
import { runBackup, runRestore } from "./cli/backup_commands.ts";
import { type CommandLine, parseCommandLine, USAGE } from "./cli/usage.ts";
import { printable, printableText } from "./cli/terminal_text.ts";

async function main(args: string[]): Promise<number> {
  let line: CommandLine;
  try {
    line = parseCommandLine(args);
  } catch (error) {
    return fail(new CommandError("USAGE", (error as Error).message), args.includes("--json"));
  }
  const [command, ...rest] = line.words;
  if (line.version) {
    console.log(
      line.json ? JSON.stringify({ name: PACKAGE_NAME, version: PACKAGE_VERSION }) : `svc-cloud ${PACKAGE_VERSION}`,
    );
    return 0;
  }
  if (line.help || command === undefined || command === "help") {
    console.log(USAGE);
    return line.help || command === "help" ? 0 : 2;
  }
  try {
    if (command === "serve") {
      await runServe(databaseTarget(line.db), serveOptions(line));
      // Stopped: nothing more to wait for (a client's socket, a timer of the runtime's server must not keep it alive).
      process.exit(0);
    }
    if (command === "project" && rest[0] === "policy") {
      return print(await runPolicyCommand(databaseTarget(line.db), rest[1], line), line);
    }
    if (command === "audit" && rest[0] === "list") {
      return print(await runAuditList(databaseTarget(line.db), line), line);
    }
    if (command === "activity" && rest[0] === "list") {
      return print(await runActivityList(databaseTarget(line.db), line), line);
    }
    if (command === "activity" && rest[0] === "export") {
      await runActivityExport(databaseTarget(line.db), line, toStdout);
      return 0;
    }
    if (command === "keys") return print(await runKeysCommand(databaseTarget(line.db), rest, line), line);
    if (command === "inbox") return print(await runInboxCommand(databaseTarget(line.db), rest, line), line);
    if (command === "project") return print(await runProjectCommand(databaseTarget(line.db), rest, line.name), line);
    if (command === "admin") {
      const options = { email: line.email, role: line.role, readPassword: readPasswordFromStdin };
      return print(await runAdminCommand(databaseTarget(line.db), rest, options), line);
    }
    if (command === "migrate") return print(await runMigrate(databaseTarget(line.db)), line);
    if (command === "backup") return print(await runBackup(databaseTarget(line.db), line.to), line);
    if (command === "restore") return print(await runRestore(databaseTarget(line.db), line.from, line.force), line);
    throw new CommandError("USAGE", `Unknown command: ${command}`);
  } catch (error) {
    if (command === "serve" && jsonLogFormat(line)) return failAsJsonLine(error);
    return fail(error, line.json);
  }
}

/** Whether `serve` was asked for JSON lines (a bad value is text: its usage error is said as text). */
function jsonLogFormat(line: CommandLine): boolean {
  return (line.logFormat ?? process.env.SVC_LOG_FORMAT) === "json";
}

/** `serve --log-format json` that could not start: the reason as one JSON line, like every other line it writes. */
function failAsJsonLine(error: unknown): number {
  const code = error instanceof CommandError ? error.code : "ERROR";
  const message = error instanceof Error ? error.message : String(error);
  console.error(
    JSON.stringify({ time: new Date().toISOString(), level: "error", message: redactSecrets(message), code }),
  );
  return code === "USAGE" ? 2 : 1;
}

/** Writes to stdout and settles once it took the chunk (a slow pipe slows the export, never fills memory). */
function toStdout(chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(chunk, (error) => error ? reject(error) : resolve()));
}

function print(output: CommandOutput, line: CommandLine): number {
  console.log(line.json ? JSON.stringify(output.json) : printableText(output.text));
  return 0;
}

function fail(error: unknown, json: boolean): number {
  const code = error instanceof CommandError ? error.code : "ERROR";
  const message = error instanceof Error ? error.message : String(error);
  if (json) console.log(JSON.stringify({ ok: false, error: { code, message } }));
  console.error(`error: ${printable(message)}`);
  if (code === "USAGE") console.error("Run with --help for usage.");
  return code === "USAGE" ? 2 : 1;
}

process.exitCode = await main(process.argv.slice(2));
