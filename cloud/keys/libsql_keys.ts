/**
 * Agent keys and agentId claims on libSQL.
 *
 * @module
 */
import type { Executor } from "../../core/db/mod.ts";
import { KEY_TOUCH_INTERVAL_MS, type KeyAuth } from "../routes/mod.ts";
import type { KeyRepository } from "./key_repository.ts";
import { createChangeCache, text, textOrNull } from "../../core/db/mod.ts";
import { BoundedMap } from "../../core/cache/mod.ts";
import { insertKey, KEY_COLUMNS, selectKeysOfUser, toKey, touchKey } from "../../core/keys/mod.ts";
import { claim, HELD_BY_USER, keysOf, mirrorKeyRow } from "./libsql_key_mirror.ts";
import { revokeKeyRow, scheduledBySuccessor, writeDueRevocationRows } from "./libsql_key_revoke.ts";
import { keyCreated, keyInForce } from "./libsql_key_lifecycle.ts";
import type { GroupCommit } from "../../core/db/mod.ts";
import type { BulkRevocationStorage } from "./bulk_revocation_storage.ts";
import { bulkRevocationStorage } from "./libsql_bulk_revocations.ts";
import { grantHolds, grantKeyInserted } from "./grant_revocation.ts";

/** Keys whose auth state is kept in process. */
const AUTH_CACHE_SIZE = 50_000;

/** The version of every key's auth state (cloud migration 20's triggers move it; a `lastUsedAt` touch does not). */
const KEY_CHANGES = "SELECT seq FROM cloud_key_changes WHERE id = 1";

/** The key part of {@linkcode KeyRepository}. */
export type KeyStorage =
  & Pick<
    KeyRepository,
    | "insertKey"
    | "mirrorKey"
    | "listKeys"
    | "revokeKey"
    | "findKeyByHash"
    | "findKeyAuth"
    | "touchKey"
    | "mirrorKeyUses"
    | "rerollKey"
    | "writeDueRevocations"
  >
  & BulkRevocationStorage;

/** The keys' tables holding a project's rows, children first: deleted with the project. */
export const KEY_TABLES: readonly string[] = [
  "cloud_user_revocations",
  "cloud_keys",
  "cloud_agent_claims",
  "cloud_revocations",
  "cloud_key_counts",
  "cloud_ended_grants",
];

/**
 * The first holder of a hash: the key agent auth and verification find. Ids and hashes are unique per
 * project only; a hash two projects hold (only on purpose: both are random) is the first holder's key,
 * active or revoked, so a copy stored later can neither take it over nor stop its revocation.
 */
const FIRST_HOLDER = "WHERE hash = ? ORDER BY seq LIMIT 1";

/**
 * Key queries on a database. A key's auth state (read by every agent
 * request) is cached until a key changes: when another connection has
 * committed, one read of `cloud_key_changes` (moved by triggers when a key is
 * stored, deleted, revoked, or its expiry or scheduled revocation set) tells
 * whether the cached keys still hold (the `lastUsedAt` cached may lag another
 * node's touch: the touch's own condition keeps it to one a minute); a mint,
 * mirror or revoke in this process drops it directly. Touches are written in groups, and
 * remembered so that a cached key is not touched again within the interval.
 * Ids and hashes are unique per project: what one project can store never
 * depends on what another holds.
 *
 * @param db The database.
 * @param group Where `lastUsedAt` touches are written together with other small writes.
 * @returns The key part of the storage.
 */
export function keyStorage(db: Executor, group: GroupCommit): KeyStorage {
  const auth = createChangeCache<string, KeyAuth | null>(db, {
    size: AUTH_CACHE_SIZE,
    // A missing row (never, short of a hand-made edit) reads as a change every time.
    changes: async () => (await db.execute(KEY_CHANGES)).rows[0]?.seq ?? Symbol("no row"),
  });
  /** `lastUsedAt` written by this process, by project and key id (bounded: the least recently used go first). */
  const touched = new BoundedMap<string, string>({ maxEntries: AUTH_CACHE_SIZE });
  return {
    // Selected keys, or all of a user's, revoked in one transaction (each dropped from the auth cache).
    ...bulkRevocationStorage(db, (hash) => auth.delete(hash)),
    async insertKey(projectId, record, kind, audit) {
      const created = audit ? [keyCreated(projectId, record.id, audit)] : [];
      if (record.grantId) {
        // A grant's key (its user's own inbox: no claim), only while the grant holds.
        const [inserted] = await db.batch([
          insertKey(keysOf(projectId), record, grantHolds(projectId, record.grantId)),
          ...grantKeyInserted(projectId, record.id, record.grantId, record.createdAt),
          ...created,
        ], "write");
        auth.delete(record.hash);
        return inserted.rowsAffected === 1;
      }
      if (kind !== "claim") {
        await db.batch([insertKey(keysOf(projectId), record), ...created], "write");
        auth.delete(record.hash);
        return true;
      }
      auth.delete(record.hash);
      // Claim the agentId for this user unless someone holds it, then insert the
      // key only if the claim is this user's: one atomic batch, no read-then-write race.
      const [, inserted] = await db.batch([
        claim(projectId, record),
        insertKey(keysOf(projectId), record, {
          sql: HELD_BY_USER,
          args: [projectId, record.agentId, record.userId],
        }),
        ...created,
      ], "write");
      return inserted.rowsAffected === 1;
    },
    async rerollKey(projectId, userId, id, record, revokesAt, now, audit) {
      const inForce = keyInForce(projectId, userId, id, now);
      const [inserted, scheduled] = await db.batch([
        insertKey(keysOf(projectId), record, inForce),
        scheduledBySuccessor(projectId, id, record.id, revokesAt),
        ...audit.map((entry) => keyCreated(projectId, record.id, entry)),
      ], "write");
      auth.delete(record.hash);
      if (scheduled.rows.length) auth.delete(text(scheduled.rows[0], "hash"));
      return inserted.rowsAffected === 1;
    },
    async writeDueRevocations(projectId, now, audit) {
      return await writeDueRevocationRows(db, (hash) => auth.delete(hash), projectId, now, audit);
    },
    async mirrorKey(projectId, mirrored, audit = {}, at = mirrored.createdAt) {
      return await mirrorKeyRow(db, (hash) => auth.delete(hash), projectId, mirrored, audit, at);
    },
    async listKeys(projectId, userId) {
      const rs = await db.execute(selectKeysOfUser(keysOf(projectId), userId));
      return rs.rows.map(toKey);
    },
    async revokeKey(projectId, id, at, reason, audit) {
      return await revokeKeyRow(db, (hash) => auth.delete(hash), projectId, id, at, reason, audit);
    },
    async findKeyAuth(hash) {
      const found = await auth.read(hash, () => readKeyAuth(db, hash));
      if (found === null) return null;
      const lastUsedAt = touched.get(touchedKey(found.projectId, found.id));
      return lastUsedAt === undefined || (found.lastUsedAt !== null && found.lastUsedAt >= lastUsedAt)
        ? found
        : { ...found, lastUsedAt };
    },
    async findKeyByHash(hash) {
      const rs = await db.execute({
        sql: `SELECT project_id, ${KEY_COLUMNS}, grant_id FROM cloud_keys ${FIRST_HOLDER}`,
        args: [hash],
      });
      return rs.rows.length ? { projectId: text(rs.rows[0], "project_id"), record: toKey(rs.rows[0]) } : null;
    },
    async touchKey(projectId, id, at) {
      const before = new Date(Date.parse(at) - KEY_TOUCH_INTERVAL_MS).toISOString();
      touched.set(touchedKey(projectId, id), at);
      await group.write([touchKey(keysOf(projectId), id, at, before)]);
    },
    async mirrorKeyUses(projectId, uses) {
      if (uses.length === 0) return 0;
      const results = await db.batch(
        uses.map(({ id, lastUsedAt }) => ({
          sql: `UPDATE cloud_keys SET last_used_at = ?
                WHERE project_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
          args: [lastUsedAt, projectId, id, lastUsedAt],
        })),
        "write",
      );
      return results.reduce((n, rs) => n + rs.rowsAffected, 0);
    },
  };
}

async function readKeyAuth(db: Executor, hash: string): Promise<KeyAuth | null> {
  const rs = await db.execute({
    sql: `SELECT id, project_id, agent_id, revoked_at, last_used_at, expires_at, revokes_at FROM cloud_keys
          ${FIRST_HOLDER}`,
    args: [hash],
  });
  if (rs.rows.length === 0) return null;
  const row = rs.rows[0];
  const expiresAt = textOrNull(row, "expires_at");
  const revokesAt = textOrNull(row, "revokes_at");
  return {
    id: text(row, "id"),
    projectId: text(row, "project_id"),
    agentId: text(row, "agent_id"),
    revokedAt: textOrNull(row, "revoked_at"),
    lastUsedAt: textOrNull(row, "last_used_at"),
    // Only when the key has them: most keys never expire.
    ...expiresAt === null ? {} : { expiresAt },
    ...revokesAt === null ? {} : { revokesAt },
  };
}

function touchedKey(projectId: string, id: string): string {
  return `${projectId}\u0000${id}`;
}
