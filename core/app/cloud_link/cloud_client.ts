/**
 * The app server's client for the cloud's SDK routes (`/v1/sdk/*`, `/v1/events`),
 * authenticated with the project's sdkSecret. Network failures, 5xx, 408, 429
 * and a refused sdkSecret (401) become `CLOUD_UNAVAILABLE`, which is worth a
 * retry; every other 4xx is permanent: it keeps the cloud's code, or becomes
 * `INTERNAL` when the answer is not the contract's envelope (an HTML 413 from a
 * proxy).
 *
 * @module
 */
import type { z } from "zod";
import type { KeyRecord, PublicKey } from "../../contract/mod.ts";
import { ERROR_STATUS, type ErrorCode, isSvcError, SvcError } from "../../errors/mod.ts";
import { emitBatchResultSchema, type EmitResult, emitResultSchema, type PostedEvent } from "../../contract/mod.ts";
import {
  keyListSchema,
  keyVerificationSchema,
  mintedKeySchema,
  okSchema,
  revokedKeySchema,
} from "../../contract/mod.ts";
import type { ManifestEntry } from "../../contract/mod.ts";
import { type RevocationPage, revocationPageSchema } from "../../contract/mod.ts";
import { toViolationReport, type Violation } from "../../contract/mod.ts";

/** Where the cloud is and how this app authenticates to it. */
export interface CloudConfig {
  /** Base URL of the cloud, such as `https://svc.example.com`. */
  endpoint: string;
  /** `prj_…`. */
  projectId: string;
  /** `svcs_…`: keep it in server-side secret storage. */
  sdkSecret: string;
  /** Per-request timeout in milliseconds. Default 5000. */
  timeoutMs?: number;
}

/** A key as the cloud's verify route describes it. */
export type CloudKey = Pick<KeyRecord, "id" | "userId" | "name" | "scopes" | "agentId">;

/** The calls the SDK makes to the cloud. */
export interface CloudClient {
  /** `PUT /v1/sdk/intents`. */
  putManifest(intents: ManifestEntry[], scopes: readonly string[]): Promise<void>;
  /** `POST /v1/sdk/violations`. */
  reportViolation(violation: Violation): Promise<void>;
  /** `POST /v1/sdk/violations/batch`: up to 500 at once, stored together. */
  reportViolations(violations: readonly Violation[]): Promise<void>;
  /** `PUT /v1/sdk/keys/:id`: the hybrid mirror of a key record. */
  mirrorKey(record: KeyRecord): Promise<void>;
  /** `POST /v1/sdk/keys`. */
  mintKey(userId: string, request: { name: string; scopes: string[]; agentId?: string }): Promise<
    z.output<typeof mintedKeySchema>
  >;
  /** `GET /v1/sdk/keys?userId=`. */
  listKeys(userId: string): Promise<PublicKey[]>;
  /** `DELETE /v1/sdk/keys/:id`. */
  revokeKey(id: string): Promise<{ id: string; revokedAt: string }>;
  /** `POST /v1/sdk/keys/verify`: the key, or `null` when the cloud does not accept it. */
  verifyKey(secret: string): Promise<CloudKey | null>;
  /** `POST /v1/events` for one event, `POST /v1/events/batch` for several (up to 500). */
  postEvents(events: PostedEvent[]): Promise<EmitResult[]>;
  /** `GET /v1/sdk/keys/revocations`: the feed after `after`, held open up to `waitSeconds` when empty. */
  revocations(after: number, options: { limit: number; waitSeconds: number; signal?: AbortSignal }): Promise<
    RevocationPage
  >;
}

/**
 * Creates the client.
 *
 * @param config Endpoint, project and secret.
 * @returns The client.
 */
export function createCloudClient(config: CloudConfig): CloudClient {
  const base = config.endpoint.replace(/\/+$/, "");
  const timeoutMs = config.timeoutMs ?? 5000;
  const headers = {
    authorization: `Bearer ${config.sdkSecret}`,
    "x-svc-project": config.projectId,
    "content-type": "application/json",
  };

  /**
   * Calls a route and checks its answer against the route's documented schema. A long poll
   * gives its wait (added to the timeout) and a signal that ends it.
   */
  async function call<T>(
    method: string,
    path: string,
    answer: z.ZodType<T>,
    body?: unknown,
    poll?: { waitMs: number; signal?: AbortSignal },
  ): Promise<T> {
    let res: Response;
    const timeout = AbortSignal.timeout(timeoutMs + (poll?.waitMs ?? 0));
    try {
      res = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: poll?.signal ? AbortSignal.any([timeout, poll.signal]) : timeout,
      });
    } catch (cause) {
      throw unavailable("The cloud cannot be reached", cause);
    }
    const data = await res.json().catch(() => null);
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
      throw unavailable("The cloud refused this app's sdkSecret or projectId", data?.error ?? res.status);
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

  return {
    async putManifest(intents, scopes) {
      await call("PUT", "/v1/sdk/intents", okSchema, { intents, scopes });
    },
    async reportViolation(v) {
      await call("POST", "/v1/sdk/violations", okSchema, { violation: toViolationReport(v) });
    },
    async reportViolations(violations) {
      await call("POST", "/v1/sdk/violations/batch", okSchema, { violations: violations.map(toViolationReport) });
    },
    async mirrorKey(r) {
      const { userId, name, scopes, agentId, hash, start, createdAt, revokedAt } = r;
      await call("PUT", `/v1/sdk/keys/${encodeURIComponent(r.id)}`, okSchema, {
        userId,
        name,
        scopes,
        agentId,
        hash,
        start,
        createdAt,
        revokedAt,
      });
    },
    mintKey(userId, request) {
      return call("POST", "/v1/sdk/keys", mintedKeySchema, { userId, ...request });
    },
    async listKeys(userId) {
      return (await call("GET", `/v1/sdk/keys?userId=${encodeURIComponent(userId)}`, keyListSchema)).keys;
    },
    async revokeKey(id) {
      const { revokedAt } = await call("DELETE", `/v1/sdk/keys/${encodeURIComponent(id)}`, revokedKeySchema);
      return { id, revokedAt };
    },
    async verifyKey(secret) {
      const data = await call("POST", "/v1/sdk/keys/verify", keyVerificationSchema, { key: secret });
      return data.valid ? data.key : null;
    },
    async postEvents(events) {
      if (events.length === 1) return [await call("POST", "/v1/events", emitResultSchema, events[0])];
      return (await call("POST", "/v1/events/batch", emitBatchResultSchema, { events })).results;
    },
    revocations(after, { limit, waitSeconds, signal }) {
      const query = `after=${after}&limit=${limit}&wait=${waitSeconds}`;
      return call("GET", `/v1/sdk/keys/revocations?${query}`, revocationPageSchema, undefined, {
        waitMs: waitSeconds * 1000,
        signal,
      });
    },
  };
}

function unavailable(message: string, cause: unknown): SvcError {
  return new SvcError("CLOUD_UNAVAILABLE", message, { cause, headers: { "retry-after": "5" } });
}

/**
 * Tells whether a cloud call failed for a reason that may pass (the network,
 * a 5xx, 408 or 429 answer, refused credentials) rather than because the
 * request itself was wrong (any other 4xx, with or without the envelope).
 *
 * @param error What the call threw.
 * @returns `true` when retrying later makes sense.
 */
export function isTransient(error: unknown): boolean {
  return isSvcError(error) ? error.code === "CLOUD_UNAVAILABLE" : true;
}
