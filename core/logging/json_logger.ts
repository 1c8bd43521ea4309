/**
 * The JSON form of the logger, for log pipelines: one JSON object a line with `time`, `level` and `message`, an
 * error's `error` (name, message, stack: secrets redacted before), and for each answered request its `route`
 * (method and pattern, never the raw path), `status`, `ms`, and when known its `project` and `keyId` (never a
 * secret). `createSvc({ logger: "json" })`, `createCloud({ logger: "json" })` and `serve --log-format json` use it.
 *
 * @module
 */
import { redactSecrets } from "../contract/mod.ts";
import type { ErrorLogger } from "./error_logger.ts";
import { expectedFailure } from "./log_line.ts";

/** How serious a line is. */
export type LogLevel = "info" | "warn" | "error";

/** What a request line says about an answered request. */
export interface RequestLogFields {
  /** `POST /svc/keys/:id/reroll`: the method and the route's pattern (`unmatched` outside the route table). */
  route: string;
  /** The answer's status. */
  status: number;
  /** Milliseconds until the answer's status and headers (a streamed body goes on after). */
  ms: number;
  /** The cloud project of the caller, when known. */
  project?: string;
  /** The agent key's id, when an agent key called (its id only, never the key). */
  keyId?: string;
}

/** A logger that writes JSON lines, for failures and, through `request`, for every answered request. */
export interface JsonLogger extends ErrorLogger {
  /** Tells a side (`createSvc`, `createCloud`) that it logs a line per answered request. */
  readonly format: "json";
  /**
   * Writes the line of an answered request: `info` below 400, `warn` for 4xx, `error` for 5xx.
   *
   * @param fields The route, status, milliseconds, project and key id.
   */
  request(fields: RequestLogFields): void;
  /**
   * Writes an informational line (`serve`'s "listening on …").
   *
   * @param message The text.
   */
  info(message: string): void;
}

/** What a JSON logger is built from. */
export interface JsonLoggerOptions {
  /** The clock of each line's `time`, in milliseconds since the epoch. */
  now: () => number;
  /** Where each line goes. Default `console.log` (standard output). */
  write?: (line: string) => void;
}

/**
 * Builds a JSON logger.
 *
 * @example Lines for a log pipeline
 * ```ts
 * import { jsonLogger } from "./json_logger.ts";
 *
 * const log = jsonLogger({ now: () => Date.parse("2026-01-01T00:00:00Z") });
 * log.request({ route: "GET /svc/agent/intents", status: 200, ms: 3, keyId: "5f0c…" });
 * // {"time":"2026-01-01T00:00:00.000Z","level":"info","message":"GET /svc/agent/intents 200","route":…}
 * ```
 *
 * @param options The clock and where lines go.
 * @returns The logger.
 */
export function jsonLogger(options: JsonLoggerOptions): JsonLogger {
  const write = options.write ?? ((line: string) => console.log(line));
  const emit = (level: LogLevel, message: string, fields: Record<string, unknown>) => {
    const time = new Date(options.now()).toISOString();
    write(redactSecrets(safeStringify({ time, level, message, ...fields })));
  };
  const log = (message: string, cause: unknown) => {
    if (cause === undefined) return emit("warn", message, {});
    const reason = expectedFailure(cause);
    if (reason !== undefined) return emit("warn", `${message}: ${reason.slice(0, LONGEST_REASON)}`, {});
    emit("error", message, { error: errorFields(cause, 0) });
  };
  return Object.assign(log, {
    format: "json" as const,
    request(fields: RequestLogFields) {
      const level: LogLevel = fields.status >= 500 ? "error" : fields.status >= 400 ? "warn" : "info";
      emit(level, `${fields.route} ${fields.status}`, { ...fields });
    },
    info(message: string) {
      emit("info", message, {});
    },
  });
}

/**
 * The fields of a request line, from what the dispatcher observed.
 *
 * @example A matched route
 * ```ts
 * import { requestLogFields } from "./json_logger.ts";
 *
 * console.log(requestLogFields({ method: "GET", path: "/v1/agent/inbox" }, 200, 0.0042, { project: "p1" }));
 * // { route: "GET /v1/agent/inbox", status: 200, ms: 4.2, project: "p1" }
 * ```
 *
 * @param route The route matched (`null`: none).
 * @param status The answer's status.
 * @param seconds How long the answer took.
 * @param ids The caller's project and agent key id, when known.
 * @returns The fields.
 */
export function requestLogFields(
  route: { method: string; path: string } | null,
  status: number,
  seconds: number,
  ids: { project?: string; keyId?: string },
): RequestLogFields {
  return {
    route: route === null ? "unmatched" : `${route.method} ${route.path}`,
    status,
    ms: Math.round(seconds * 10_000) / 10,
    ...ids.project === undefined ? {} : { project: ids.project },
    ...ids.keyId === undefined ? {} : { keyId: ids.keyId },
  };
}

/**
 * Whether a logger is a {@linkcode JsonLogger} (one that logs a line per answered request).
 *
 * @param logger A logger, or nothing.
 * @returns `true` for a JSON logger.
 */
export function isJsonLogger(logger: unknown): logger is JsonLogger {
  return typeof logger === "function" && (logger as { format?: unknown }).format === "json";
}

/** The longest reason written for an expected failure (as the text form). */
const LONGEST_REASON = 300;

/** How deep a cause's own causes are followed. */
const CAUSE_DEPTH = 3;

function errorFields(cause: unknown, depth: number): unknown {
  if (typeof cause !== "object" || cause === null) return { message: String(cause).slice(0, 2000) };
  const { name, message, stack, code } = cause as {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    code?: unknown;
  };
  if (typeof message !== "string") return { message: safeStringify(cause).slice(0, 2000) };
  const inner = (cause as { cause?: unknown }).cause;
  return {
    name: typeof name === "string" ? name : "Error",
    message,
    ...typeof code === "string" ? { code } : {},
    ...typeof stack === "string" ? { stack } : {},
    ...inner !== undefined && depth < CAUSE_DEPTH ? { cause: errorFields(inner, depth + 1) } : {},
  };
}

/** JSON of anything: a cycle or a BigInt does not throw. */
function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) return "[cycle]";
      seen.add(v);
    }
    return v;
  }) ?? "null";
}
