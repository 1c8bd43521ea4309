/**
 * Agent keys and agentId claims on libSQL.
 *
 * @module
 */
import type { Executor, ResultSet, Statement } from "../../core/db/mod.ts";
import type { KeyRecord } from "../../core/contract/mod.ts";
import { KEY_TOUCH_INTERVAL_MS, type KeyAuth } from "../routes/mod.ts";
import type { KeyRepository, MirroredKey, MirrorOutcome, MirrorReason } from "./key_repository.ts";
import { createChangeCache, placeholders, text, textOrNull } from "../../core/db/mod.ts";
import { BoundedMap } from "../../core/cache/mod.ts";
import {
  insertKey,
  KEY_COLUMNS,
  type KeyTable,
  keyValues,
  selectKeyById,
  selectKeysOfUser,
  toKey,
  touchKey,
} from "../../core/keys/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import { keyCreated, keyInForce, scheduledRevocations, writeDueRevocation } from "./libsql_key_lifecycle.ts";
import type { GroupCommit } from "../../core/db/mod.ts";
import type { BulkRevocationStorage } from "./bulk_revocation_storage.ts";
import { bulkRevocationStorage } from "./libsql_bulk_revocations.ts";
import {
  endedGrant,
  endGrantsOfKeys,
  feedRevokedGrantKeys,
  grantHolds,
  grantKeyInserted,
  heldByGrant,
  mirroredGrantKey,
} from "./grant_revocation.ts";

/** Keys whose auth state is kept in process. */
const AUTH_CACHE_SIZE = 50_000;

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

/** A project's keys in the shared `cloud_keys` table. */
function keysOf(projectId: string): KeyTable {
  return { table: "cloud_keys", projectId };
}

/** The agentId is claimed by the user (arguments: project, agentId, user). */
const HELD_BY_USER = "EXISTS (SELECT 1 FROM cloud_agent_claims WHERE project_id = ? AND agent_id = ? AND user_id = ?)";

/**
 * The first holder of a hash: the key agent auth and verification find. Ids and hashes are unique per
 * project only; a hash two projects hold (only on purpose: both are random) is the first holder's key,
 * active or revoked, so a copy stored later can neither take it over nor stop its revocation.
 */
const FIRST_HOLDER = "WHERE hash = ? ORDER BY seq LIMIT 1";
/** How many values a key has in {@linkcode KEY_COLUMNS}. */
const KEY_VALUES = KEY_COLUMNS.split(", ").length;

/**
 * Key queries on a database. A key's auth state (read by every agent
 * request) is cached until the database changes; a mint, mirror or revoke in
 * this process drops it directly. Touches are written in groups, and
 * remembered so that a cached key is not touched again within the interval.
 * Ids and hashes are unique per project: what one project can store never
 * depends on what another holds.
 *
 * @param db The database.
 * @param group Where `lastUsedAt` touches are written together with other small writes.
 * @returns The key part of the storage.
 */
export function keyStorage(db: Executor, group: GroupCommit): KeyStorage {
  const auth = createChangeCache<string, KeyAuth | null>(db, { size: AUTH_CACHE_SIZE });
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
        // Only once the successor is stored; an earlier schedule is kept.
        {
          sql:
            `UPDATE cloud_keys SET revokes_at = CASE WHEN revokes_at IS NULL OR revokes_at > ? THEN ? ELSE revokes_at END
                WHERE project_id = ? AND id = ? AND EXISTS (SELECT 1 FROM cloud_keys WHERE project_id = ? AND id = ?)
                RETURNING hash`,
          args: [revokesAt, revokesAt, projectId, id, projectId, record.id],
        },
        ...audit.map((entry) => keyCreated(projectId, record.id, entry)),
      ], "write");
      auth.delete(record.hash);
      if (scheduled.rows.length) auth.delete(text(scheduled.rows[0], "hash"));
      return inserted.rowsAffected === 1;
    },
    async writeDueRevocations(projectId, now, audit) {
      const scheduled = await db.execute(scheduledRevocations(projectId));
      const due = scheduled.rows.filter((row) => text(row, "revokes_at") <= now);
      const next = scheduled.rows.find((row) => text(row, "revokes_at") > now);
      const upcoming = next === undefined ? null : text(next, "revokes_at");
      if (due.length === 0) return { written: 0, next: upcoming };
      const written = await db.transaction(async (tx) => {
        let count = 0;
        for (const row of due) {
          const id = text(row, "id");
          const rs = await tx.execute(writeDueRevocation(projectId, id, now));
          if (rs.rowsAffected === 0) continue; // revoked meanwhile, by another process or for another reason
          await tx.execute(auditInsert(audit(id, text(row, "revokes_at"))));
          count++;
        }
        return count;
      }, "write");
      for (const row of due) auth.delete(text(row, "hash"));
      return { written, next: upcoming };
    },
    async mirrorKey(projectId, mirrored, audit = {}, at = mirrored.createdAt) {
      const claims = mirrored.agentId.startsWith("agt_");
      const grantId = mirrored.grantId ?? null;
      const forget: string[] = [];
      // One write transaction: the user's watermark read, the mirror and, when it revoked the key, its audit entry.
      const stored = await db.transaction(async (tx) => {
        if (claims) await tx.execute(claim(projectId, mirrored));
        const watermark = await tx.execute(userWatermark(projectId, mirrored.userId));
        const ended = grantId === null ? undefined : (await tx.execute(endedGrant(projectId, grantId))).rows[0];
        const record = heldByGrant(heldByWatermark(mirrored, watermark), ended);
        // Read the revocation in the same write transaction, to tell whether this mirror revoked the key.
        const before = await tx.execute(selectKeyById(keysOf(projectId), record.id));
        const upsert = await tx.execute({
          // Only for an agt_ id this user holds (claimed now or before). A revoked record never becomes
          // active again: the first revocation time (and its reason) wins. The project's record of this
          // id keeps its hash; another of its records with this hash refuses it (ON CONFLICT DO NOTHING).
          // The earlier expiry and scheduled revocation win.
          sql: `INSERT INTO cloud_keys (project_id, ${KEY_COLUMNS}, revoke_reason)
                SELECT ${placeholders(KEY_VALUES + 2)}
                WHERE ${claims ? HELD_BY_USER : "1"}
                ON CONFLICT (project_id, id) DO UPDATE SET name = excluded.name, scopes = excluded.scopes,
                  revoke_reason = CASE WHEN cloud_keys.revoked_at IS NULL THEN excluded.revoke_reason
                    ELSE cloud_keys.revoke_reason END,
                  revoked_at = COALESCE(cloud_keys.revoked_at, excluded.revoked_at),
                  expires_at = CASE WHEN excluded.expires_at IS NOT NULL
                    AND (cloud_keys.expires_at IS NULL OR excluded.expires_at < cloud_keys.expires_at)
                    THEN excluded.expires_at ELSE cloud_keys.expires_at END,
                  revokes_at = CASE WHEN cloud_keys.revokes_at IS NULL OR excluded.revokes_at < cloud_keys.revokes_at
                    THEN excluded.revokes_at ELSE cloud_keys.revokes_at END
                WHERE cloud_keys.hash = excluded.hash
                ON CONFLICT DO NOTHING`,
          args: [
            projectId,
            ...keyValues(record),
            record.revokedAt === null ? null : record.revokeReason,
            ...(claims ? [projectId, record.agentId, record.userId] : []),
          ],
        });
        if (upsert.rowsAffected !== 1) return null;
        const wasActive = before.rows.length === 0 || before.rows[0].revoked_at === null;
        let outcome: MirrorOutcome = wasActive && record.revokedAt !== null ? "revoked" : "stored";
        if (before.rows.length === 0 && audit.created) await tx.execute(auditInsert(audit.created));
        if (outcome === "revoked" && audit.revoked) {
          await tx.execute(auditInsert(audit.revoked(record.revokeReason ?? "app")));
        }
        if (audit.rerolled) {
          // Once per reroll: a retried or later mirror of the same record finds the entry.
          await tx.execute(auditInsert(audit.rerolled, {
            sql: `NOT EXISTS (SELECT 1 FROM cloud_audit WHERE project_id = ? AND action = 'key.reroll' AND target = ?
              AND json_extract(detail, '$.successor') = ?)`,
            args: [projectId, record.id, String(audit.rerolled.detail.successor)],
          }));
        }
        if (grantId !== null) {
          const key = { ...mirrored, grantId, stored: before.rows.length === 0 };
          const grant = await mirroredGrantKey(tx, projectId, key, watermark.rows[0], at);
          forget.push(...grant.hashes);
          if (grant.fed) outcome = "revoked";
        }
        return outcome;
      }, "write");
      for (const hash of forget) auth.delete(hash);
      auth.delete(mirrored.hash);
      if (stored !== null) return stored;
      // Nothing stored: this project has the id with another hash, or the hash under another id, or
      // (neither) the agt_ id is another user's. Only this project's rows are read.
      const rs = await db.execute({
        sql: "SELECT 1 FROM cloud_keys WHERE project_id = ? AND (id = ? OR hash = ?)",
        args: [projectId, mirrored.id, mirrored.hash],
      });
      return rs.rows.length === 0 && claims ? "agent_taken" : "hash_taken";
    },
    async listKeys(projectId, userId) {
      const rs = await db.execute(selectKeysOfUser(keysOf(projectId), userId));
      return rs.rows.map(toKey);
    },
    async revokeKey(projectId, id, at, reason, audit) {
      // The trigger `cloud_keys_revoked` adds the feed row in this statement's transaction, once; the audit
      // entry goes first in the same batch, written only when the key is the project's and still active.
      const active = {
        sql: "EXISTS (SELECT 1 FROM cloud_keys WHERE id = ? AND project_id = ? AND revoked_at IS NULL)",
        args: [id, projectId],
      };
      // Any revoke but the OAuth server's own ends the key's grant, if it has one, in the same transaction.
      const grant = reason === "oauth" ? [] : endGrantsOfKeys(projectId, { sql: "id = ?", args: [id] }, at);
      // A key the grant replaced (revoked already): the feed carries this revoke all the same, so a hybrid app,
      // which alone knows the grant's key in force, ends the grant.
      const fed = reason === "oauth"
        ? []
        : [feedRevokedGrantKeys(projectId, { sql: "id = ?", args: [id] }, at, reason)];
      const results = await db.batch([
        ...audit ? [auditInsert(audit, active)] : [],
        ...fed,
        {
          sql: `UPDATE cloud_keys SET revoke_reason = CASE WHEN revoked_at IS NULL THEN ? ELSE revoke_reason END,
                revoked_at = COALESCE(revoked_at, ?)
              WHERE id = ? AND project_id = ? RETURNING revoked_at, hash`,
          args: [reason, at, id, projectId],
        },
        ...grant,
      ], "write");
      const rs = results[results.length - 1 - grant.length];
      if (rs.rows.length === 0) return null;
      auth.delete(text(rs.rows[0], "hash"));
      if (grant.length) { for (const row of results[results.length - 1].rows) auth.delete(text(row, "hash")); }
      return text(rs.rows[0], "revoked_at");
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

/** The statement that reads a user's revoke-all watermark (no row when none). */
function userWatermark(projectId: string, userId: string): Statement {
  return {
    sql: "SELECT revoked_at, reason FROM cloud_user_revocations WHERE project_id = ? AND user_id = ?",
    args: [projectId, userId],
  };
}

/**
 * A mirrored record as it is stored: an active key created at or before its user's revoke-all watermark is revoked
 * then, with the revoke-all's reason; any other keeps its own state (`app` when revoked without a reason).
 */
function heldByWatermark(record: MirroredKey, watermark: ResultSet): MirroredKey & { revokeReason: MirrorReason } {
  const row = watermark.rows[0];
  if (record.revokedAt === null && row !== undefined && record.createdAt <= text(row, "revoked_at")) {
    return { ...record, revokedAt: text(row, "revoked_at"), revokeReason: text(row, "reason") as MirrorReason };
  }
  return { ...record, revokeReason: record.revokeReason ?? "app" };
}

function claim(projectId: string, record: KeyRecord): Statement {
  return {
    sql: `INSERT INTO cloud_agent_claims (project_id, agent_id, user_id, claimed_at) VALUES (?, ?, ?, ?)
          ON CONFLICT DO NOTHING`,
    args: [projectId, record.agentId, record.userId, record.createdAt],
  };
}
