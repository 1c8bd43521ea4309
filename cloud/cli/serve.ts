/**
 * `serve`: the cloud through the running runtime's adapter (on Deno, behind
 * the connection guard: a connection cap from the open-file limit, head,
 * request and idle timeouts on every request of a connection, accept failures
 * survived; on Bun and in the single binary, Bun's own limits), stopping on SIGINT and
 * SIGTERM: no new connections, waiting long polls answered at once, `Connection: close` on every answer from then
 * on, idle kept-alive connections closed at once and busy ones after their answer, in-flight requests finished,
 * the database closed, and the process gone within `--shutdown-timeout` (default 10 s) whatever clients do; a
 * second signal exits at once. No runtime can raise its own open-file limit:
 * start it under `ulimit -n` as high as the connections you expect, times three.
 *
 * @module
 */
import process from "node:process";
import { serve as bunServe } from "../../adapters/bun.ts";
import { serve as denoServe } from "../../adapters/deno.ts";
import { serve as nodeServe } from "../../adapters/node.ts";
import { type CloudOptions, createCloud, DEFAULT_CLOUD_RATE_LIMITS } from "../create_cloud.ts";
import { reachableUrl } from "../../adapters/_reachable_url.ts";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "../../core/http/mod.ts";
import { openCloudStorage } from "../open_cloud_storage.ts";
import { jsonLogger } from "../../core/logging/mod.ts";
import { createOperatorService } from "../operators/mod.ts";
import { publicOrigin } from "../dashboard/mod.ts";
import { type DatabaseTarget, displayUrl } from "./database_url.ts";
import { CommandError } from "./project_commands.ts";
import type { CommandLine } from "./usage.ts";

/** Where to listen, and the rate limits. */
export interface ServeOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /** Address. */
  host: string;
  /** Serve the dashboard at `/dashboard` (default `true`). */
  dashboard?: boolean;
  /** The dashboard's origin as browsers see it behind a TLS proxy (`https://svc.example.com`), checked. */
  publicUrl?: string;
  /** The cloud's rate limits. */
  rateLimit?: CloudOptions["rateLimit"];
  /** The first wait after repeated failed sign-ins, in milliseconds (default 1 s; never less). */
  signInWaitMs?: number;
  /** How long a stop on SIGTERM or SIGINT may take before the process exits anyway, in milliseconds (default 10 s). */
  shutdownTimeoutMs?: number;
  /** The bearer token of `GET /v1/metrics`; without one, callers on this machine only. */
  metricsToken?: string;
  /** `json`: every line the server writes is one JSON object (`--log-format`, `SVC_LOG_FORMAT`); default `text`. */
  logFormat?: LogFormat;
}

/** How `serve` writes its lines. */
export type LogFormat = "text" | "json";

/**
 * The log format asked for: `--log-format`, else `SVC_LOG_FORMAT`, else `text`.
 *
 * @param line The parsed command line.
 * @returns The format.
 * @throws {CommandError} `USAGE` for another value.
 */
export function logFormatOf(line: CommandLine): LogFormat {
  const format = line.logFormat ?? (process.env.SVC_LOG_FORMAT || "text");
  if (format !== "text" && format !== "json") {
    throw new CommandError("USAGE", "--log-format (or SVC_LOG_FORMAT) must be text or json");
  }
  return format;
}

/** The longest `--shutdown-timeout`, in seconds: an hour. */
export const MAX_SHUTDOWN_TIMEOUT_SECONDS = 3600;

/** The longest first wait `--sign-in-wait` takes, in seconds: the sign-in limiter's cap (15 minutes). */
export const MAX_SIGN_IN_WAIT_SECONDS = 900;

/** The address `serve` listens on by default: this machine only. */
export const DEFAULT_HOST = "127.0.0.1";

/**
 * Reads `serve`'s options from the command line: `--port` (8787), `--host`
 * (127.0.0.1), `--no-dashboard`, `--public-url` (an http(s) origin), `--rate-limit-project`,
 * `--rate-limit-agent` and `--rate-limit-refusals` (per minute; 0 is off), `--sign-in-wait` (seconds, 1 to 900:
 * it can only lengthen the default wait), `--shutdown-timeout` (seconds, 1 to 3600; default 10).
 *
 * @param line The parsed command line.
 * @returns The options.
 * @throws {CommandError} `USAGE` for a bad value.
 */
export function serveOptions(line: CommandLine): ServeOptions {
  const port = Number(line.port ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CommandError("USAGE", "--port must be 0..65535");
  let publicUrl: string | undefined;
  try {
    publicUrl = line.publicUrl === undefined ? undefined : publicOrigin(line.publicUrl);
  } catch (error) {
    throw new CommandError("USAGE", `--public-url: ${(error as Error).message}`);
  }
  const signInWait = line.signInWait === undefined ? undefined : Number(line.signInWait);
  if (
    signInWait !== undefined &&
    (!Number.isInteger(signInWait) || signInWait < 1 || signInWait > MAX_SIGN_IN_WAIT_SECONDS)
  ) {
    throw new CommandError(
      "USAGE",
      `--sign-in-wait must be a whole number of seconds, 1 to ${MAX_SIGN_IN_WAIT_SECONDS}`,
    );
  }
  const shutdownTimeout = Number(line.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT_MS / 1000);
  if (!Number.isInteger(shutdownTimeout) || shutdownTimeout < 1 || shutdownTimeout > MAX_SHUTDOWN_TIMEOUT_SECONDS) {
    throw new CommandError(
      "USAGE",
      `--shutdown-timeout must be a whole number of seconds, 1 to ${MAX_SHUTDOWN_TIMEOUT_SECONDS}`,
    );
  }
  const metricsToken = line.metricsToken ?? (process.env.SVC_METRICS_TOKEN || undefined);
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,200}$/.test(metricsToken)) {
    throw new CommandError(
      "USAGE",
      "--metrics-token (or SVC_METRICS_TOKEN) must be 16 to 200 printable characters without spaces " +
        "(openssl rand -hex 32 makes one)",
    );
  }
  return {
    port,
    host: line.host ?? DEFAULT_HOST,
    metricsToken,
    logFormat: logFormatOf(line),
    shutdownTimeoutMs: shutdownTimeout * 1000,
    signInWaitMs: signInWait === undefined ? undefined : signInWait * 1000,
    dashboard: !line.noDashboard,
    publicUrl,
    rateLimit: {
      perProject: perMinute("--rate-limit-project", line.rateLimitProject, DEFAULT_CLOUD_RATE_LIMITS.perProject.limit),
      perAgentKey: perMinute("--rate-limit-agent", line.rateLimitAgent, DEFAULT_CLOUD_RATE_LIMITS.perAgentKey.limit),
      refusalsPerAddress: perMinute(
        "--rate-limit-refusals",
        line.rateLimitRefusals,
        DEFAULT_CLOUD_RATE_LIMITS.refusalsPerAddress.limit,
      ),
    },
  };
}

function perMinute(
  flag: string,
  value: string | undefined,
  fallback: number,
): { limit: number; windowMs: number } | false {
  const limit = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 0) {
    throw new CommandError("USAGE", `${flag} must be a whole number of requests per minute (0 turns it off)`);
  }
  return limit === 0 ? false : { limit, windowMs: 60_000 };
}

/**
 * Serves the cloud until SIGINT or SIGTERM.
 *
 * @param target The database.
 * @param options Port, address, dashboard, public URL, rate limits, the first sign-in wait and the shutdown timeout.
 * @returns When the server has stopped.
 */
export async function runServe(target: DatabaseTarget, options: ServeOptions): Promise<void> {
  const dashboard = options.dashboard ?? true;
  // --log-format json: the cloud's lines and serve's own are JSON objects, one a line, on stdout.
  const json = options.logFormat === "json" ? jsonLogger({ now: Date.now }) : undefined;
  const say = json === undefined ? (message: string) => console.log(message) : json.info;
  const cloud = createCloud({
    logger: json,
    db: target.url,
    authToken: target.authToken,
    // Encrypts operators' TOTP secrets at rest when set (32 bytes in base64).
    secretKey: process.env.SVC_SECRET_KEY || undefined,
    rateLimit: options.rateLimit,
    metricsToken: options.metricsToken,
    dashboard: dashboard && { publicUrl: options.publicUrl, signInLimits: { baseDelayMs: options.signInWaitMs } },
  });
  await cloud.ready;
  const setupLink = dashboard ? await setupLinkFor(target) : null;
  const serveHere = "Deno" in globalThis ? denoServe : "Bun" in globalThis ? bunServe : nodeServe;
  let server: Awaited<ReturnType<typeof serveHere>>;
  try {
    server = await serveHere(cloud.handle, { port: options.port, hostname: options.host });
  } catch (error) {
    await cloud.close(); // nothing may keep the process alive after the one line main.ts prints
    throw error;
  }
  const stopped = Promise.withResolvers<void>();
  const timeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      say(`${signal}: second signal: exiting now`);
      process.exit(1);
    }
    stopping = true;
    say(`${signal}: answering held polls, finishing in-flight requests (at most ${timeoutMs / 1000} s)…`);
    // Whatever clients do (a request that never ends, a handler that never answers), the process ends here.
    const deadline = setTimeout(() => {
      say(`shutdown timeout (${timeoutMs / 1000} s): exiting with requests still in flight`);
      process.exit(1);
    }, timeoutMs);
    // Stop accepting, answer long polls at once, close connections (kept-alive ones after their answer), let the
    // rest finish, then close the database.
    Promise.all([server.close(timeoutMs), cloud.close()]).then(
      () => {
        clearTimeout(deadline);
        stopped.resolve();
      },
      stopped.reject,
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  const url = reachableUrl(options.host, server.port);
  const browsers = options.publicUrl ?? url; // where browsers reach the dashboard
  say(`svc cloud listening on ${url}/v1 (db: ${displayUrl(target.url)})`);
  if (dashboard) say(`dashboard: ${browsers}/dashboard`);
  if (setupLink) {
    say(
      `No operator yet. Create the first admin within 1 hour with this one-time link:\n  ${browsers}${setupLink}\n` +
        "or run: admin create --email YOU@EXAMPLE.COM (password on stdin)",
    );
  }

  await stopped.promise;
  say("svc cloud stopped");
}

/** The one-time setup link while no operator exists (a `:memory:` database has nobody to share it with: none). */
async function setupLinkFor(target: DatabaseTarget): Promise<string | null> {
  if (target.url === ":memory:") return null;
  const storage = await openCloudStorage(target.url, { authToken: target.authToken });
  try {
    return await createOperatorService(storage).createSetupLink();
  } finally {
    await storage.close();
  }
}
