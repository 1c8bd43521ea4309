/**
 * The hybrid mirror of a key on libSQL (`PUT /v1/sdk/keys/:id`): the agentId's claim, the user's revoke-all
 * watermark, the key's grant, the upsert and its audit entries, in one write transaction.
 *
 * @module
 */
import type { Executor, ResultSet, Statement } from "../../core/db/mod.ts";
import type { KeyRecord } from "../../core/contract/mod.ts";
import { placeholders, text } from "../../core/db/mod.ts";
import { KEY_COLUMNS, type KeyTable, keyValues, selectKeyById } from "../../core/keys/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import type { MirrorAudit, MirroredKey, MirrorOutcome, MirrorReason } from "./key_repository.ts";
import { endedGrant, heldByGrant, mirroredGrantKey } from "./grant_revocation.ts";

/** How many values a key has in `KEY_COLUMNS`. */
const KEY_VALUES = KEY_COLUMNS.split(", ").length;

/** The agentId is claimed by the user (arguments: project, agentId, user). */
export const HELD_BY_USER =
  "EXISTS (SELECT 1 FROM cloud_agent_claims WHERE project_id = ? AND agent_id = ? AND user_id = ?)";

/** A project's keys in the shared `cloud_keys` table. */
export function keysOf(projectId: string): KeyTable {
  return { table: "cloud_keys", projectId };
}

/** The statement that claims the record's agentId for its user unless someone holds it. */
export function claim(projectId: string, record: KeyRecord): Statement {
  return {
    sql: `INSERT INTO cloud_agent_claims (project_id, agent_id, user_id, claimed_at) VALUES (?, ?, ?, ?)
          ON CONFLICT DO NOTHING`,
    args: [projectId, record.agentId, record.userId, record.createdAt],
  };
}

/**
 * Mirrors a key record (see `KeyRepository.mirrorKey`).
 *
 * @param db The database.
 * @param dropCached Forgets a hash's cached auth state.
 * @param projectId The project.
 * @param mirrored The record the app sent.
 * @param audit The audit entries to write with it.
 * @param at When the mirror was made.
 * @returns What became of it.
 */
export async function mirrorKeyRow(
  db: Executor,
  dropCached: (hash: string) => void,
  projectId: string,
  mirrored: MirroredKey,
  audit: MirrorAudit,
  at: string,
): Promise<MirrorOutcome> {
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
  for (const hash of forget) dropCached(hash);
  dropCached(mirrored.hash);
  if (stored !== null) return stored;
  // Nothing stored: this project has the id with another hash, or the hash under another id, or
  // (neither) the agt_ id is another user's. Only this project's rows are read.
  const rs = await db.execute({
    sql: "SELECT 1 FROM cloud_keys WHERE project_id = ? AND (id = ? OR hash = ?)",
    args: [projectId, mirrored.id, mirrored.hash],
  });
  return rs.rows.length === 0 && claims ? "agent_taken" : "hash_taken";
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
