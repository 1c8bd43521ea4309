/**
 * One call to the cloud's `/v1`: the project's headers with the secret as it is now, a timeout (longer for a long
 * poll), the answer checked against the route's documented schema, and each failure turned into the one `SvcError`
 * the app's retry logic understands; a `401` remembered as the time since which the cloud refuses the credentials.
 *
 * @module
 */
import type { z } from "zod";
import type { Runtime } from "../platform/mod.ts";
import { ERROR_STATUS, type ErrorCode, SvcError } from "../errors/mod.ts";

/** Where the cloud is and how this app authenticates to it. */
export interface CloudConfig {
  /** Base URL of the cloud, such as `https://svc.example.com`. */
  endpoint: string;
  /** `prj_…`. */
  projectId: string;
  /**
   * `svcs_…`: keep it in server-side secret storage. A function is called again before each call to
   * the cloud, so a rotated secret (read from a file, a secret store) is picked up without a restart.
   */
  sdkSecret: string | (() => string | Promise<string>);
  /**
   * How this app instance is named on the cloud's list of connected apps (`GET /v1/sdk/apps`), up to 100
   * characters. Default the host's name when the runtime tells it, else `app`.
   */
  label?: string;
  /** Per-request timeout in milliseconds. Default 5000. */
  timeoutMs?: number;
}

/** Who follows the feed, sent on each poll: one instance per `createSvc`. */
export interface CloudAppIdentity {
  /** A ULID made per `createSvc`. */
  instanceId: string;
  /** The app's label (`cloud.label`). */
  label: string;
  /** `hybrid` or `cloud`. */
  mode: "hybrid" | "cloud";
  /** The SDK's version. */
  sdkVersion: string;
  /** The outbox's items waiting for the cloud, sent on each poll (`x-svc-outbox-depth`); not sent when it fails. */
  outboxDepth?: () => Promise<number>;
}

/** How a long poll waits: its hold (added to the timeout), its grace after the hold, and a signal that ends it. */
export interface CloudPoll {
  /** The hold asked of the cloud, in milliseconds. */
  waitMs: number;
  /** How long after the hold the call is given up (default, and at most, the timeout). */
  graceMs?: number;
  /** Ends the poll. */
  signal?: AbortSignal;
}

/** What {@linkcode cloudCall} gives the client. */
export interface CloudCall {
  /** Calls a route and checks its answer against `answer`. */
  call<T>(method: string, path: string, answer: z.ZodType<T>, body?: unknown, poll?: CloudPoll): Promise<T>;
  /** Since when (ms since the epoch) the cloud has refused the app's credentials, or `null` while they work. */
  refusedSince(): number | null;
}

/**
 * Builds the call the cloud client's methods share.
 *
 * @param config Endpoint, project, secret and timeout.
 * @param identity This app instance, sent on feed polls.
 * @param runtime The clock of `refusedSince` and the `fetch` that calls.
 * @returns The call and the credentials' state.
 */
export function cloudCall(
  config: CloudConfig,
  identity: CloudAppIdentity | undefined,
  runtime: Pick<Runtime, "now" | "fetch">,
): CloudCall {
  const base = config.endpoint.replace(/\/+$/, "");
  const timeoutMs = config.timeoutMs ?? 5000;
  let refusedAt: number | null = null;
  /** The secret last read: a 401 to a call made with an older one (in flight across a change) is not news. */
  let latest = "";
  const feedHeaders: Record<string, string> = identity === undefined ? {} : {
    "x-svc-instance": identity.instanceId,
    "x-svc-app-label": identity.label.slice(0, 100),
    "x-svc-mode": identity.mode,
    "x-svc-sdk-version": identity.sdkVersion,
  };

  /** The headers of a call, with the secret as it is now (a function is asked each time). */
  async function headersOf(feed: boolean): Promise<Record<string, string>> {
    const secret = typeof config.sdkSecret === "function" ? await config.sdkSecret() : config.sdkSecret;
    latest = secret;
    const depth = feed && identity?.outboxDepth ? await identity.outboxDepth().catch(() => null) : null;
    return {
      authorization: `Bearer ${secret}`,
      "x-svc-project": config.projectId,
      "content-type": "application/json",
      ...(feed ? feedHeaders : {}),
      ...(depth === null ? {} : { "x-svc-outbox-depth": String(depth) }),
    };
  }

  /**
   * Calls a route and checks its answer against the route's documented schema. A long poll
   * gives its wait (added to the timeout) and a signal that ends it.
   */
  async function call<T>(
    method: string,
    path: string,
    answer: z.ZodType<T>,
    body?: unknown,
    poll?: CloudPoll,
  ): Promise<T> {
    let res: Response;
    let headers: Record<string, string>;
    try {
      headers = await headersOf(path.startsWith("/v1/sdk/keys/revocations"));
    } catch (cause) {
      throw unavailable("The app's cloud.sdkSecret function failed", cause);
    }
    const timeout = AbortSignal.timeout(Math.min(timeoutMs, poll?.graceMs ?? timeoutMs) + (poll?.waitMs ?? 0));
    try {
      res = await runtime.fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: poll?.signal ? AbortSignal.any([timeout, poll.signal]) : timeout,
      });
    } catch (cause) {
      throw unavailable("The cloud cannot be reached", cause);
    }
    const data = await res.json().catch(() => null);
    if (res.ok) refusedAt = null; // only an answer to an authenticated call says the credentials work (not a 404)
    if (res.ok) {
      const parsed = answer.safeParse(data);
      if (parsed.success) return parsed.data;
      throw unavailable(`The cloud's answer to ${method} ${path.split("?")[0]} is not the documented shape`, data);
    }
    if (res.status >= 500 || res.status === 408) {
      throw unavailable(`The cloud answered ${res.status}`, data?.error ?? res.status);
    }
    if (res.status === 401) {
      // The app's credentials, not the request, are wrong: every call fails alike until the secret is fixed.
      if (headers.authorization === `Bearer ${latest}`) refusedAt ??= runtime.now();
      throw new SvcError("CLOUD_CREDENTIALS_REFUSED", "The cloud refused this app's sdkSecret or projectId", {
        cause: data?.error ?? res.status,
        headers: { "retry-after": "5" },
      });
    }
    if (res.status === 429) {
      // Over the project's rate: the request was fine, so it is retried later, never dropped.
      throw new SvcError("CLOUD_UNAVAILABLE", "The cloud is rate limiting this project", {
        cause: data?.error ?? res.status,
        headers: { "retry-after": res.headers.get("retry-after") ?? "5" },
      });
    }
    const code = data?.error?.code as ErrorCode | undefined;
    if (code === undefined || !(code in ERROR_STATUS) || ERROR_STATUS[code] >= 500) {
      // A 4xx without the envelope (a proxy's HTML 413): the same request will be refused again.
      throw new SvcError("INTERNAL", `The cloud answered ${res.status} to ${method} ${path.split("?")[0]}`, {
        cause: data?.error ?? res.status,
      });
    }
    throw new SvcError(code, String(data.error.message), { details: data.error.details });
  }

  return { call, refusedSince: () => refusedAt };
}

function unavailable(message: string, cause: unknown): SvcError {
  return new SvcError("CLOUD_UNAVAILABLE", message, { cause, headers: { "retry-after": "5" } });
}
