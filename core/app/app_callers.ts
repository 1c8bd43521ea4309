/**
 * Who calls `/svc`: the signed-in user (through the app's `userResolver`) or an agent key, and
 * the per-key rate limit that refuses a key over its budget. A revoked key's use and a key's first
 * refusal in a row are recorded as violations.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import {
  AGENT_KEY_PREFIX,
  bearerToken,
  isExpired,
  keyNoLongerWorks,
  keyRefusal,
  newViolation,
} from "../contract/mod.ts";
import { type RateDecision, rateLimited } from "../abuse/mod.ts";
import { pathnameOf } from "../http/mod.ts";
import { type AppDeps, SVC_PREFIX } from "./routes/mod.ts";
import { INVALID_AGENT_KEY, MALFORMED_AGENT_KEY, MISSING_AGENT_KEY } from "./agent_key_refusals.ts";
import type { VerifiedKey } from "../keys/mod.ts";
import type { SvcConfig } from "./svc_config.ts";

/**
 * The signed-in user of a request, or `UNAUTHORIZED`; an id longer than the cloud keeps is refused here.
 *
 * @param userResolver The app's.
 * @param req The request.
 * @returns The user id.
 */
export async function resolveUser(userResolver: SvcConfig["userResolver"], req: Request): Promise<string> {
  // A page on another site must not act as the signed-in user (CSRF): a browser marks its request `Sec-Fetch-Site:
  // cross-site`, and a body-less POST (approve an approval) needs no preflight. Reads, and same-site callers, pass.
  if (req.method !== "GET" && req.method !== "HEAD" && req.headers.get("sec-fetch-site") === "cross-site") {
    throw new SvcError("UNAUTHORIZED", "A request from another site cannot act as the signed-in user");
  }
  const user = await userResolver(req);
  if (typeof user !== "string" || user.length === 0) {
    throw new SvcError("UNAUTHORIZED", "Sign in to manage agent keys");
  }
  if (user.length > MAX_USER_ID) {
    throw new SvcError("VALIDATION_ERROR", "Invalid request", {
      details: { issues: [{ path: "userId", message: `The signed-in user's id is over ${MAX_USER_ID} characters` }] },
    });
  }
  return user;
}

/**
 * The agent key of a request, or its refusal returned (never thrown: a refused key costs no rejection through the
 * dispatcher's `await`s): `UNAUTHORIZED` (with `details: { reason, at }` for a key that exists but no longer works), or
 * `RATE_LIMITED` for an address past its budget of refused keys; a revoked or expired key's use is recorded.
 *
 * @param req The request.
 * @param deps The keys and the recorder.
 * @returns The verified key, or the refusal.
 */
export async function authenticateAgent(
  req: Request,
  deps: AppDeps,
): Promise<VerifiedKey | SvcError> {
  const { keys, recordViolation, repeatViolation, addressWaitMs, now, link } = deps;
  // An app that cannot hear revocations refuses every agent key: a revoked one might be among them.
  link.revocationsHeard();
  const secret = bearerToken(req, AGENT_KEY_PREFIX);
  if (secret === null) {
    return req.headers.has("authorization") ? MALFORMED_AGENT_KEY : MISSING_AGENT_KEY;
  }
  // An address past its budget of refused keys: answered from what is known, without a verify call at the cloud.
  const wait = addressWaitMs(req);
  const known = wait > 0 && keys.verifyKnown ? await keys.verifyKnown(secret) : undefined;
  if (wait > 0 && keys.verifyKnown && known === undefined) return rateLimited(wait);
  const verified = known === undefined ? await keys.verify(secret) : known;
  const key = verified !== null && verified.revokedAt === null && link.autoRevoked(verified.id)
    ? { ...verified, revokedAt: new Date(now()).toISOString() }
    : verified;
  if (key !== null && key.revokedAt === null && isExpired(key, now())) {
    if (!repeatViolation(key.id, "EXPIRED_KEY", null)) {
      recordViolation(newViolation("EXPIRED_KEY", {
        keyId: key.id,
        userId: key.userId,
        message: "An expired key was used",
        metadata: { method: req.method, path: pathnameOf(req.url).slice(0, 200), expiresAt: key.expiresAt },
      }));
    }
    recordRefusedRun(req, key, deps);
    return keyNoLongerWorks({ reason: "expired", at: key.expiresAt as string });
  }
  if (key === null || key.revokedAt !== null) {
    if (key !== null && !repeatViolation(key.id, "REVOKED_KEY", null)) {
      recordViolation(newViolation("REVOKED_KEY", {
        keyId: key.id,
        userId: key.userId,
        message: "A revoked key was used",
        metadata: { method: req.method, path: pathnameOf(req.url).slice(0, 200) },
      }));
    }
    // The holder of a key that exists is told why it stopped working; an unknown key gets no reason.
    const refusal = key === null ? null : keyRefusal(key, now());
    if (refusal === null) return INVALID_AGENT_KEY;
    recordRefusedRun(req, key as VerifiedKey, deps);
    return keyNoLongerWorks(refusal);
  }
  link.used(key.id);
  return key;
}

/**
 * Records the activity of a run refused because its key, one that exists, no longer works (revoked, expired, rerolled
 * past its grace): only `POST /svc/agent/run` and `POST /svc/mcp`, whose body is not read (the intent is `(unknown)`).
 */
function recordRefusedRun(req: Request, key: VerifiedKey, { activity }: AppDeps): void {
  if (req.method !== "POST") return;
  const path = pathnameOf(req.url);
  const via = path === RUN_PATH ? "http" : path === MCP_PATH ? "mcp" : undefined;
  if (via === undefined) return;
  activity.record({ key, intent: undefined, via, status: 401, code: "UNAUTHORIZED", ms: 0 });
}

/**
 * Refuses a request over the key's rate; the first refusal in a row is recorded.
 *
 * @param key The caller.
 * @param decision The limiter's.
 * @param deps The recorder.
 */
export function limitRate(key: VerifiedKey, decision: RateDecision, { recordViolation }: AppDeps): void {
  if (decision.allowed) return;
  if (decision.first) {
    recordViolation(newViolation("RATE_LIMITED", {
      keyId: key.id,
      userId: key.userId,
      message: "The key went over its rate limit",
      metadata: { retryAfterMs: decision.retryAfterMs },
    }));
  }
  throw rateLimited(decision.retryAfterMs);
}

/** The routes whose refused runs are activity records. */
const RUN_PATH = `${SVC_PREFIX}/agent/run`;
const MCP_PATH = `${SVC_PREFIX}/mcp`;

/** The longest user id, as the cloud stores it. */
const MAX_USER_ID = 200;
