/**
 * Auto-revoke on libSQL: counting a key's violations and, at the threshold, revoking it with its
 * `AUTO_REVOKED` violation and audit entry, in one transaction (the key and audit statements are their features').
 *
 * @module
 */
import type { Executor } from "../../core/db/mod.ts";
import { autoRevokedViolation } from "../../core/contract/mod.ts";
import type { RevocationReason } from "../../core/contract/mod.ts";
import { countTowardAutoRevoke, insertViolation } from "../../core/violations/mod.ts";
import { integer, text } from "../../core/db/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import { activeKeyUser, endGrantsOfKeys, keyRevoke } from "../keys/mod.ts";
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
      // A grant's keys count together: each refresh mints a new key.
      const violations = { table: "cloud_violations", projectId, keys: "cloud_keys" };
      return db.transaction(async (tx) => {
        const key = await tx.execute(activeKeyUser(projectId, keyId));
        if (key.rows.length === 0) return null;
        // The one counting rule of both sides: a coalesced report of N repeats counts N.
        const counted = await tx.execute(countTowardAutoRevoke(violations, keyId, policy, at));
        const count = integer(counted.rows[0], "n");
        if (count < policy.threshold) return null;
        const reason: RevocationReason = "auto";
        await tx.execute(keyRevoke(projectId, keyId, reason, at));
        // The key's OAuth grant, if it has one, ends with it.
        for (const statement of endGrantsOfKeys(projectId, { sql: "id = ?", args: [keyId] }, at)) {
          await tx.execute(statement);
        }
        const violation = autoRevokedViolation({ keyId, userId: text(key.rows[0], "user_id") }, policy, count);
        await tx.execute(insertViolation(violations, violation));
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
