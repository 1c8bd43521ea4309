/**
 * The command line's help text and argument parsing.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** The help text of `svc-cloud`. */
export const USAGE = `svc-cloud: the self-hostable cloud of @svc/agent-access (/v1 on libSQL)

Usage:
  svc-cloud serve [--port N] [--host H] [--db URL] [--public-url URL]
                                                      Serve /v1 and /dashboard (default port 8787, host 127.0.0.1)
  svc-cloud project create --name NAME [--json]       Create a project; prints its id and sdkSecret once
  svc-cloud project rotate-secret PROJECT_ID [--json] Replace a project's sdkSecret; the old one stops at once
  svc-cloud project list [--json]                     List projects
  svc-cloud project policy PROJECT_ID [--auto-revoke-threshold N --auto-revoke-window MINUTES]
            [--auto-revoke off] [--retention-days N|default]
            [--key-lifetime-default DAYS|none] [--key-lifetime-max DAYS|none] [--key-lifetime off] [--json]
                                                      Show or change a project's auto-revoke policy, retention and
                                                      key lifetimes; what no flag names is kept
  svc-cloud audit list [--project PROJECT_ID] [--action A] [--key KEY_ID] [--since T] [--limit N] [--json]
                                                      The audit log, newest first
  svc-cloud activity list --project PROJECT_ID [--key KEY_ID] [--user USER] [--since T] [--until T]
            [--cursor C] [--limit N] [--json]           What agents did, newest first, a page at a time
  svc-cloud activity export --project PROJECT_ID [--since T] [--until T]
                                                      What agents did as NDJSON on stdout, oldest first (for a SIEM)
  svc-cloud keys revoke --user USER --project PROJECT_ID [--json]
                                                      Revoke every active key of a user (one transaction)
  svc-cloud inbox dead-letters --project PROJECT_ID --agent AGENT_ID [--json]
                                                      An agent's dead letters (handed out maxDeliveries times)
  svc-cloud inbox redrive --project PROJECT_ID --agent AGENT_ID [--ids 1,2] [--json]
                                                      Put dead letters (all, or those named) back in the inbox
  svc-cloud inbox replay --project PROJECT_ID --agent AGENT_ID --since T [--until T] [--json]
                                                      Queue acknowledged items created in [since, until) again
  svc-cloud migrate [--json]                          Apply pending schema migrations
  svc-cloud backup --to FILE [--json]                 Write a consistent copy of the (live) file: database to FILE
  svc-cloud restore --from FILE [--force] [--json]    Check a backup (integrity, schema version) and install it at
                                                      --db; the cloud on it must be stopped; --force replaces a file
  svc-cloud --version                                 Print the version
  svc-cloud admin create --email E [--role admin|viewer] [--json]
                                                      Create a dashboard operator; the password is read from stdin
  svc-cloud admin list [--json]                       List operators
  svc-cloud admin remove --email E [--json]           Remove an operator and end their sessions
  svc-cloud admin password --email E [--json]         Set a new password (stdin) and end their sessions
  svc-cloud --help                                    Show this help

Run it as: npx svc-cloud … (the npm package), npm run svc-cloud -- … (this repository), deno run -A cloud/main.ts …,
bun cloud/main.ts …, node cloud/main.ts … (Node 22.18+), or dist/svc-cloud ….

Options:
  --db URL     libSQL database: file:./data/svc.db (default), :memory:, libsql://…, http://…
  --json       Print exactly one JSON object on stdout
  --port N     Port to listen on (0 picks a free one)
  --host H     Address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 or :: for every interface)
  --rate-limit-project N  SDK writes per minute per project (default 6000; 0 turns it off)
  --rate-limit-agent N    Requests per minute per agent key to its inbox and acks (default 1200; 0 turns it off)
  --rate-limit-refusals N Refused credentials per minute per client address; past it the address gets 429
                          (default 100; 0 turns it off)
  --no-dashboard  Serve /v1 only, without the dashboard at /dashboard
  --public-url URL  The dashboard's address as browsers see it behind a TLS proxy, an origin such as
                    https://svc.example.com: Origin check, Secure cookies and HSTS (X-Forwarded-Proto is never trusted)
  --sign-in-wait S  The first wait after 5 failed sign-ins, in seconds (default 1, at least 1, at most 900),
                    doubled with each further failure up to 15 minutes
  --metrics-token T  The bearer token GET /v1/metrics asks for (16+ characters; also SVC_METRICS_TOKEN); without
                    one, /v1/metrics answers callers on this machine only
  --log-format F  text (default: one line of text each) or json (one JSON object a line on stdout, with time, level,
                    message, and per /v1 request its route, status, ms, project and keyId; also SVC_LOG_FORMAT)
  --shutdown-timeout S  On SIGTERM or SIGINT: held long polls are answered at once, kept-alive connections closed,
                    in-flight requests given up to S seconds (default 10), then the process exits whatever clients
                    do; a second signal exits at once

Environment:
  SVC_DB_URL         Database URL when --db is not given
  SVC_DB_AUTH_TOKEN  Auth token of a remote database (Turso)
  SVC_METRICS_TOKEN  The bearer token of GET /v1/metrics when --metrics-token is not given (serve)
  SVC_LOG_FORMAT     text or json, when --log-format is not given (serve)
  SVC_SECRET_KEY     32 bytes in base64 (openssl rand -base64 32) that encrypt operators' TOTP secrets (serve)
`;

/** The parsed command line. */
export interface CommandLine {
  /** Positional words: the command and its arguments. */
  words: string[];
  /** `--json`. */
  json: boolean;
  /** `--help`. */
  help: boolean;
  /** `--version`. */
  version: boolean;
  /** `--db`. */
  db?: string;
  /** `--port`. */
  port?: string;
  /** `--host`. */
  host?: string;
  /** `--name`. */
  name?: string;
  /** `--email`. */
  email?: string;
  /** `--role`. */
  role?: string;
  /** `--no-dashboard`. */
  noDashboard: boolean;
  /** `--public-url`. */
  publicUrl?: string;
  /** `--auto-revoke-threshold`. */
  autoRevokeThreshold?: string;
  /** `--auto-revoke-window` (minutes). */
  autoRevokeWindow?: string;
  /** `--auto-revoke` (only `off`). */
  autoRevoke?: string;
  /** `--retention-days` (a number or `default`). */
  retentionDays?: string;
  /** `--key-lifetime-default` (days or `none`). */
  keyLifetimeDefault?: string;
  /** `--key-lifetime-max` (days or `none`). */
  keyLifetimeMax?: string;
  /** `--key-lifetime` (only `off`). */
  keyLifetime?: string;
  /** `--project`. */
  project?: string;
  /** `--user`. */
  user?: string;
  /** `--agent` (an agentId). */
  agent?: string;
  /** `--ids` (inbox ids, comma-separated). */
  ids?: string;
  /** `--action`. */
  action?: string;
  /** `--key` (a key's id: the audit log of that key). */
  key?: string;
  /** `--since`. */
  since?: string;
  /** `--until` (activity, inbox replay). */
  until?: string;
  /** `--cursor` (activity list: the next page). */
  cursor?: string;
  /** `--limit`. */
  limit?: string;
  /** `--rate-limit-project`. */
  rateLimitProject?: string;
  /** `--rate-limit-agent`. */
  rateLimitAgent?: string;
  /** `--rate-limit-refusals`. */
  rateLimitRefusals?: string;
  /** `--sign-in-wait`. */
  signInWait?: string;
  /** `--to` (backup). */
  to?: string;
  /** `--from` (restore). */
  from?: string;
  /** `--force` (restore over an existing file). */
  force: boolean;
  /** `--shutdown-timeout`. */
  shutdownTimeout?: string;
  /** `--metrics-token`. */
  metricsToken?: string;
  /** `--log-format` (serve): `text` or `json`. */
  logFormat?: string;
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
      version: { type: "boolean", short: "v", default: false },
      db: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      name: { type: "string" },
      email: { type: "string" },
      role: { type: "string" },
      "no-dashboard": { type: "boolean", default: false },
      "public-url": { type: "string" },
      "auto-revoke-threshold": { type: "string" },
      "auto-revoke-window": { type: "string" },
      "auto-revoke": { type: "string" },
      "retention-days": { type: "string" },
      "key-lifetime-default": { type: "string" },
      "key-lifetime-max": { type: "string" },
      "key-lifetime": { type: "string" },
      project: { type: "string" },
      user: { type: "string" },
      action: { type: "string" },
      key: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      cursor: { type: "string" },
      limit: { type: "string" },
      agent: { type: "string" },
      ids: { type: "string" },
      "rate-limit-project": { type: "string" },
      "rate-limit-agent": { type: "string" },
      "rate-limit-refusals": { type: "string" },
      "sign-in-wait": { type: "string" },
      to: { type: "string" },
      from: { type: "string" },
      force: { type: "boolean", default: false },
      "shutdown-timeout": { type: "string" },
      "metrics-token": { type: "string" },
      "log-format": { type: "string" },
    },
  });
  return {
    words: positionals,
    json: values.json ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
    db: values.db,
    port: values.port,
    host: values.host,
    name: values.name,
    email: values.email,
    role: values.role,
    noDashboard: values["no-dashboard"] ?? false,
    publicUrl: values["public-url"],
    autoRevokeThreshold: values["auto-revoke-threshold"],
    autoRevokeWindow: values["auto-revoke-window"],
    autoRevoke: values["auto-revoke"],
    retentionDays: values["retention-days"],
    keyLifetimeDefault: values["key-lifetime-default"],
    keyLifetimeMax: values["key-lifetime-max"],
    keyLifetime: values["key-lifetime"],
    project: values.project,
    user: values.user,
    agent: values.agent,
    ids: values.ids,
    action: values.action,
    key: values.key,
    since: values.since,
    until: values.until,
    cursor: values.cursor,
    limit: values.limit,
    rateLimitProject: values["rate-limit-project"],
    rateLimitAgent: values["rate-limit-agent"],
    rateLimitRefusals: values["rate-limit-refusals"],
    signInWait: values["sign-in-wait"],
    to: values.to,
    from: values.from,
    force: values.force ?? false,
    shutdownTimeout: values["shutdown-timeout"],
    metricsToken: values["metrics-token"],
    logFormat: values["log-format"],
  };
}
