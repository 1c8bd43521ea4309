/**
 * The app side's revocation writes on libSQL: revocations from the cloud's
 * feed with its cursor, and the local auto-revoke policy.
 *
 * @module
 */
import type { Executor } from "../../db/mod.ts";
import { autoRevokedViolation, type AutoRevokePolicy, type Violation } from "../../contract/mod.ts";
import { countTowardAutoRevoke, insertViolation, type ViolationTable } from "../../violations/mod.ts";
import type { FeedRevocation } from "./app_storage.ts";
import { endGrantOfKey } from "./libsql_grant_keys.ts";

/** The app's violations; a grant's keys count together toward auto-revoke. */
const VIOLATIONS: ViolationTable = { table: "app_violations", keys: "app_keys" };

/**
 * The last applied seq of the feed.
 *
 * @param db The app's database.
 * @returns The seq, 0 before the first.
 */
export async function readRevocationCursor(db: Executor): Promise<number> {
  const rs = await db.execute("SELECT seq FROM app_revocation_cursor WHERE id = 1");
  return rs.rows.length ? Number(rs.rows[0].seq) : 0;
}

/**
 * Applies feed revocations and moves the cursor, in one write. A revoked key
 * keeps its first time and never becomes active again.
 *
 * @param db The app's database.
 * @param revocations The keys and their revocation times.
 * @param nextSeq The feed's cursor after them.
 * @param now The time of the write, in milliseconds since the epoch.
 * @returns The hashes of the keys it revoked (for the caller's key cache).
 */
export function writeRevocations(
  db: Executor,
  revocations: readonly FeedRevocation[],
  nextSeq: number,
  now: number,
): Promise<string[]> {
  return db.transaction(async (tx) => {
    const hashes: string[] = [];
    for (const r of revocations) {
      const rs = await tx.execute({
        sql: "UPDATE app_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hash",
        args: [r.revokedAt, r.keyId],
      });
      hashes.push(...rs.rows.map((row) => String(row.hash)));
      // An operator's, auto-revoke's or another node's revoke of a grant's key ends the grant (hybrid: the keys it
      // revokes here are queued for the cloud; in cloud mode this store holds no keys, and the cloud ends it); so
      // does an `oauth` revoke of a key still active here: the cloud ended its grant (the app's own are revoked here
      // before they are mirrored).
      if (r.reason !== "oauth" || rs.rows.length > 0) {
        hashes.push(...await endGrantOfKey(tx, r.keyId, r.revokedAt, true));
        // Cloud mode keeps no key here: the grant whose key in force it is ends (the cloud ended it already).
        await tx.execute({
          sql: "UPDATE app_oauth_grants SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?",
          args: [r.revokedAt, r.keyId],
        });
      }
    }
    await tx.execute({
      sql: `INSERT INTO app_revocation_cursor (id, seq, updated_at) VALUES (1, ?, ?)
          ON CONFLICT (id) DO UPDATE SET seq = MAX(seq, excluded.seq), updated_at = excluded.updated_at`,
      args: [nextSeq, new Date(now).toISOString()],
    });
    return hashes;
  }, "write");
}

/**
 * Counts the key's violations the policy counts within its window and, at the
 * threshold, revokes the key and stores the `AUTO_REVOKED` violation (queued
 * for the cloud with the key's record when `mirror`), in one transaction.
 *
 * @param db The app's database.
 * @param keyId The key.
 * @param policy The policy.
 * @param at Now, ISO 8601.
 * @param mirror Queue the revoke and the violation for the cloud.
 * @returns The `AUTO_REVOKED` violation and the hashes of the keys it revoked (the key, and the other keys of its OAuth
 *   grant, which ends with it), for the caller's key cache; `null` when the key stays active.
 */
export function autoRevokeKey(
  db: Executor,
  keyId: string,
  policy: AutoRevokePolicy,
  at: string,
  mirror: boolean,
): Promise<{ violation: Violation; hashes: string[] } | null> {
  return db.transaction(async (tx) => {
    const key = await tx.execute({
      sql: "SELECT user_id, hash FROM app_keys WHERE id = ? AND revoked_at IS NULL",
      args: [keyId],
    });
    if (key.rows.length === 0) return null;
    // The one counting rule of both sides: a coalesced summary of N repeated refusals counts N.
    const counted = await tx.execute(countTowardAutoRevoke(VIOLATIONS, keyId, policy, at));
    const count = Number(counted.rows[0].n);
    if (count < policy.threshold) return null;
    await tx.execute({ sql: "UPDATE app_keys SET revoked_at = ? WHERE id = ?", args: [at, keyId] });
    const violation = autoRevokedViolation({ keyId, userId: String(key.rows[0].user_id) }, policy, count);
    await tx.execute(insertViolation(VIOLATIONS, violation));
    if (mirror) {
      await tx.execute({
        sql: "INSERT INTO app_outbox (kind, ref, created_at) VALUES ('key', ?, ?)",
        args: [keyId, at],
      });
      await tx.execute({
        sql: "INSERT INTO app_outbox (kind, ref, body, created_at) VALUES ('violation', ?, ?, ?)",
        args: [violation.id, JSON.stringify(violation), at],
      });
    }
    return { violation, hashes: [String(key.rows[0].hash), ...await endGrantOfKey(tx, keyId, at, mirror)] };
  }, "write");
}
