/**
 * Auto-revoke on libSQL: counting a key's violations and, at the threshold, revoking it with its
 * `AUTO_REVOKED` violation and audit entry, in one transaction (the key and audit statements are their features').
 *
 * @module
 */
import type { Executor } from "../../core/db/mod.ts";
import { autoRevokedViolation, countedBy } from "../../core/contract/mod.ts";
import type { RevocationReason } from "../../core/contract/mod.ts";
import { VIOLATION_COLUMNS, violationValues } from "../../core/violations/mod.ts";
import { integer, text } from "../../core/db/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import { activeKeyUser, keyRevoke } from "../keys/mod.ts";
import type { AutoRevoking } from "./auto_revoke_storage.ts";

/**
 * Auto-revoke on an executor.
 *
 * @param db The database.
 * @returns The auto-revoke part of the violations' repository.
 */
export function autoRevoking(db: Executor): AutoRevoking {
  return {
    autoRevoke(projectId, keyId, policy, at) {
      const since = new Date(Date.parse(at) - policy.windowMinutes * 60_000).toISOString();
      const { kinds, severities } = countedBy(policy);
      return db.transaction(async (tx) => {
        const key = await tx.execute(activeKeyUser(projectId, keyId));
        if (key.rows.length === 0) return null;
        const counted = await tx.execute({
          sql: `SELECT COUNT(*) AS n FROM cloud_violations
                WHERE project_id = ? AND key_id = ? AND created_at >= ? AND kind != 'AUTO_REVOKED'
                  AND (kind IN (${slots(kinds.length)}) OR severity IN (${slots(severities.length)}))`,
          args: [projectId, keyId, since, ...kinds, ...severities],
        });
        const count = integer(counted.rows[0], "n");
        if (count < policy.threshold) return null;
        const reason: RevocationReason = "auto";
        await tx.execute(keyRevoke(projectId, keyId, reason, at));
        const violation = autoRevokedViolation({ keyId, userId: text(key.rows[0], "user_id") }, policy, count);
        await tx.execute({
          sql: `INSERT INTO cloud_violations (project_id, ${VIOLATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          args: [projectId, ...violationValues(violation)],
        });
        await tx.execute(auditInsert({
          projectId,
          actor: "system",
          action: "key.revoke",
          target: keyId,
          detail: { reason, count, threshold: policy.threshold },
          sourceAddress: null,
          createdAt: at,
        }));
        return { revokedAt: at, count, violation };
      }, "write");
    },
  };
}

function slots(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}
