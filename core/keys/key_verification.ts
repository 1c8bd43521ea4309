/**
 * Minting and verifying an agent key, the same on both sides whatever stores it.
 *
 * @module
 */
import {
  type AgentIdKind,
  agentIdTaken,
  checkAgentId,
  type KeyRecord,
  mintAgentKey,
  publicKey,
  sha256Hex,
  timingSafeEqual,
} from "../contract/mod.ts";
import type { KeyRequest, MintResult } from "./key_service.ts";

/**
 * Mints a key: checks the agentId rules, makes the record and its secret, and stores it.
 *
 * @example Mint into a map
 * ```ts
 * import { mintKey } from "./key_verification.ts";
 *
 * const stored = new Map();
 * const { secret } = await mintKey("alice", { name: "laptop", scopes: [] }, {
 *   sharedInbox: false,
 *   store: (record) => (stored.set(record.hash, record), Promise.resolve(true)),
 * });
 * console.log(secret.startsWith("svc_live_"), stored.size); // true 1
 * ```
 *
 * @param userId The user the key acts for.
 * @param request Name, scopes and agentId.
 * @param options Whether the shared inbox may be minted, where the record is stored (`false` when an agentId
 *   claimed by another user kept it out), and when it is minted (milliseconds; default now).
 * @returns The listed form of the key, its plaintext (shown once) and the stored record.
 * @throws {SvcError} `VALIDATION_ERROR` on a refused agentId or one another user holds.
 */
export async function mintKey(
  userId: string,
  request: KeyRequest,
  options: { sharedInbox: boolean; store(record: KeyRecord, kind: AgentIdKind): Promise<boolean>; now?: number },
): Promise<MintResult & { record: KeyRecord }> {
  const { agentId, kind } = checkAgentId(userId, request.agentId, options.sharedInbox);
  const { record, key } = await mintAgentKey(userId, { ...request, agentId }, options.now);
  if (request.grantId !== undefined) record.grantId = request.grantId;
  if (!await options.store(record, kind)) throw agentIdTaken(agentId);
  return { key: publicKey(record), secret: key, record };
}

/**
 * Finds the key a plaintext secret belongs to: hashes it, looks the hash up, and compares in constant time.
 *
 * @example Verify against a map
 * ```ts
 * import { findKeyBySecret, mintKey } from "./mod.ts";
 *
 * const stored = new Map();
 * const { secret } = await mintKey("alice", { name: "laptop", scopes: [] }, {
 *   sharedInbox: false,
 *   store: (record) => (stored.set(record.hash, record), Promise.resolve(true)),
 * });
 * const key = await findKeyBySecret(secret, (hash) => Promise.resolve(stored.get(hash) ?? null));
 * console.log(key?.userId); // alice
 * ```
 *
 * @param secret The `svc_live_…` plaintext.
 * @param findByHash Looks a key up by its hash.
 * @returns The key, revoked or not; `null` when unknown.
 */
export function findKeyBySecret<K extends Pick<KeyRecord, "hash">>(
  secret: string,
  findByHash: (hash: string) => Promise<K | null>,
): Promise<K | null> {
  // Hashed synchronously and looked up in one step: every agent request comes through here, and each `await` of
  // an async function's would cost it a turn of the microtask queue.
  const hash = sha256Hex(secret);
  return findByHash(hash).then((record) => record !== null && timingSafeEqual(record.hash, hash) ? record : null);
}
