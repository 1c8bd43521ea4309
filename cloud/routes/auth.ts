/**
 * The two credentials of `/v1`: SDK auth (a project's current sdkSecret and
 * its id) and agent auth (an unrevoked agent key). The storage serves both
 * from its in-process cache while the database is unchanged (`PRAGMA
 * data_version` on a local file, so a rotation or a revocation by another
 * process applies to the next request), and updates the cache itself on a
 * rotation or revocation made through it. On a remote database (or an
 * injected Client) a project's secret hash is read on every request (a
 * rotation applies at once everywhere) and an agent key's state at least once
 * a second (the contract's bound for other nodes).
 *
 * @module
 */
import {
  AGENT_KEY_PREFIX,
  bearerToken,
  keyNoLongerWorks,
  keyRefusal,
  SDK_SECRET_PREFIX,
  sha256Hex,
  timingSafeEqual,
  unauthorized,
} from "../../core/contract/mod.ts";
import { defaultLogger, type ErrorLogger } from "../../core/logging/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** How long a key's `lastUsedAt` may lag behind its use, to spare a write on every request. */
export const KEY_TOUCH_INTERVAL_MS = 60_000;

/** The columns of a key that agent auth reads. */
export interface KeyAuth {
  /** The key. */
  id: string;
  /** Its project. */
  projectId: string;
  /** The inbox it reads. */
  agentId: string;
  /** ISO 8601, or `null` while active. */
  revokedAt: string | null;
  /** ISO 8601, or `null` when never used. */
  lastUsedAt: string | null;
  /** ISO 8601 after which the key is refused; absent or `null`: never. */
  expiresAt?: string | null;
  /** ISO 8601 of its scheduled revocation (a reroll's grace end); absent or `null`: none. */
  revokesAt?: string | null;
}

/** What authentication reads (and records of a key's use) of the projects' and keys' repositories. */
export interface AuthStorage {
  /** The projects' one narrow read of SDK auth. */
  projects: {
    /** The hash of the project's current secret, or `null`. */
    projectSecretHash(id: string): Promise<string | null>;
  };
  /** The keys' narrow read of agent auth, and the record of a use. */
  keys: {
    /** What agent auth needs of the key with this hash, or `null`. */
    findKeyAuth(hash: string): Promise<KeyAuth | null>;
    /** Records a use of the project's key, at most once a minute. */
    touchKey(projectId: string, id: string, at: string): Promise<void>;
  };
}

/** The header naming the project in SDK auth. */
export const PROJECT_HEADER = "x-svc-project";

/** A caller authenticated with SDK auth. */
export interface SdkCaller {
  /** The project whose secret was presented. */
  projectId: string;
}

/** A caller authenticated with an agent key. */
export interface AgentCaller {
  /** The key's project. */
  projectId: string;
  /** The inbox the key reads. */
  agentId: string;
  /** The key's id. */
  keyId: string;
}

const PROJECT_ID = /^prj_[0-9A-HJKMNP-TV-Z]{26}$/;
const NO_PROJECT_HASH = "0".repeat(64);

/**
 * Checks SDK auth: `Authorization: Bearer svcs_…` and `x-svc-project`, which
 * must name the project whose current secret this is.
 *
 * @param req The request.
 * @param storage The cloud's storage.
 * @returns The project.
 * @throws {SvcError} `UNAUTHORIZED` otherwise.
 */
export async function authenticateSdk(req: Request, storage: AuthStorage): Promise<SdkCaller> {
  const secret = bearerToken(req, SDK_SECRET_PREFIX);
  const projectId = req.headers.get(PROJECT_HEADER);
  if (secret === null || projectId === null || !PROJECT_ID.test(projectId)) {
    throw unauthorized("Missing or invalid credentials");
  }
  // Hashed synchronously while the lookup is read (a cached one, nearly always): one await, not two and an all.
  const hash = sha256Hex(secret);
  const secretHash = await storage.projects.projectSecretHash(projectId);
  // Compare even when the project is unknown, so both failures take the same time.
  const matches = timingSafeEqual(hash, secretHash ?? NO_PROJECT_HASH);
  if (secretHash === null || !matches) throw unauthorized("Missing or invalid credentials");
  return { projectId };
}

/**
 * Checks agent auth: `Authorization: Bearer svc_live_…` of a key the cloud
 * knows and that is not revoked, expired or past its scheduled revocation. Records the use, at most once a minute.
 *
 * @param req The request.
 * @param storage The cloud's storage.
 * @param now The clock expiries are checked against, in milliseconds. Default `Date.now`.
 * @param log Where a failed record of the use goes (the request is served all the same).
 * @returns The key's project, agentId and id.
 * @throws {SvcError} `UNAUTHORIZED` otherwise.
 */
export async function authenticateAgent(
  req: Request,
  storage: AuthStorage,
  now: () => number = PLATFORM.now,
  log: ErrorLogger = defaultLogger,
): Promise<AgentCaller> {
  const key = bearerToken(req, AGENT_KEY_PREFIX);
  if (key === null) throw unauthorized("Missing or invalid credentials");
  const found = await storage.keys.findKeyAuth(sha256Hex(key));
  if (found === null) throw unauthorized("Missing or invalid credentials");
  // The holder of a key that exists is told why it stopped working (revoked, expired, rerolled); never anyone else.
  const refusal = keyRefusal(found, now());
  if (refusal !== null) throw keyNoLongerWorks(refusal);
  await recordUse(storage, found.projectId, found.id, found.lastUsedAt, log, now);
  return { projectId: found.projectId, agentId: found.agentId, keyId: found.id };
}

/**
 * Records that a key was used, unless that was done less than a minute ago. Best-effort: a record that
 * cannot be written (a full disk, a locked database) is logged and the use is served all the same.
 *
 * @param storage The cloud's storage.
 * @param projectId The key's project.
 * @param keyId The key.
 * @param lastUsedAt The key's recorded last use.
 * @param log Where a failed record goes. Default the default logger.
 * @param clock The clock, in milliseconds (default the platform's).
 * @returns When recorded, or when the record failed.
 */
export async function recordUse(
  storage: AuthStorage,
  projectId: string,
  keyId: string,
  lastUsedAt: string | null,
  log: ErrorLogger = defaultLogger,
  clock: () => number = PLATFORM.now,
): Promise<void> {
  const now = clock();
  if (lastUsedAt !== null && now - Date.parse(lastUsedAt) < KEY_TOUCH_INTERVAL_MS) return;
  await storage.keys.touchKey(projectId, keyId, new Date(now).toISOString())
    .catch((error) => log("Recording a key's last use failed", error));
}

/**
 * Checks again, before a long poll returns anything, that its credential
 * still holds: a key revoked or a secret rotated while the poll waited gets
 * a 401, not what arrived meanwhile.
 *
 * @param req The long poll's request.
 * @param auth Its auth kind.
 * @param projectId The project it was authenticated for.
 * @param storage The cloud's storage.
 * @returns When the credential holds.
 * @throws {SvcError} `UNAUTHORIZED` when the key was revoked or the secret rotated since.
 */
export async function reauthenticate(
  req: Request,
  auth: "sdk" | "agent",
  projectId: string,
  storage: AuthStorage,
): Promise<void> {
  const caller = auth === "sdk" ? await authenticateSdk(req, storage) : await authenticateAgent(req, storage);
  if (caller.projectId !== projectId) throw unauthorized("Missing or invalid credentials");
}
