/**
 * The command line's help text and argument parsing.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** The help text of `svc-cloud`. */
export const USAGE = `svc-cloud: the self-hostable cloud of @svc/agent-access (/v1 on libSQL)

Usage:
  svc-cloud serve [--port N] [--host H] [--db URL]   Serve /v1 (default port 8787, host 127.0.0.1)
  svc-cloud project create --name NAME [--json]       Create a project; prints its id and sdkSecret once
  svc-cloud project rotate-secret PROJECT_ID [--json] Replace a project's sdkSecret; the old one stops at once
  svc-cloud project list [--json]                     List projects
  svc-cloud migrate [--json]                          Apply pending schema migrations
  svc-cloud --help                                    Show this help

Run it as: node cloud/main.ts …, deno run -A cloud/main.ts …, bun cloud/main.ts …, or dist/svc-cloud ….

Options:
  --db URL     libSQL database: file:./data/svc.db (default), :memory:, libsql://…, http://…
  --json       Print exactly one JSON object on stdout
  --port N     Port to listen on (0 picks a free one)
  --host H     Address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 or :: for every interface)
  --rate-limit-project N  SDK writes per minute per project (default 6000; 0 turns it off)
  --rate-limit-agent N    Requests per minute per agent key to its inbox and acks (default 1200; 0 turns it off)

Environment:
  SVC_DB_URL         Database URL when --db is not given
  SVC_DB_AUTH_TOKEN  Auth token of a remote database (Turso)
`;

/** The parsed command line. */
export interface CommandLine {
  /** Positional words: the command and its arguments. */
  words: string[];
  /** `--json`. */
  json: boolean;
  /** `--help`. */
  help: boolean;
  /** `--db`. */
  db?: string;
  /** `--port`. */
  port?: string;
  /** `--host`. */
  host?: string;
  /** `--name`. */
  name?: string;
  /** `--rate-limit-project`. */
  rateLimitProject?: string;
  /** `--rate-limit-agent`. */
  rateLimitAgent?: string;
}

/**
 * Parses the arguments after the program name.
 *
 * @param args The arguments.
 * @returns The command line.
 * @throws {TypeError} For an unknown option.
 */
export function parseCommandLine(args: string[]): CommandLine {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
      db: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      name: { type: "string" },
      "rate-limit-project": { type: "string" },
      "rate-limit-agent": { type: "string" },
    },
  });
  return {
    words: positionals,
    json: values.json ?? false,
    help: values.help ?? false,
    db: values.db,
    port: values.port,
    host: values.host,
    name: values.name,
    rateLimitProject: values["rate-limit-project"],
    rateLimitAgent: values["rate-limit-agent"],
  };
}
