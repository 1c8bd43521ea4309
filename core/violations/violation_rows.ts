/**
 * A violation's row, the same on both sides: its columns, its values in their order, and the row read back.
 *
 * @module
 */
import type { Severity, Violation } from "../contract/mod.ts";
import { parsed, type SqlRow, text, textOrNull } from "../db/mod.ts";

/** The columns a violation is stored in, on both sides, in the order of {@linkcode violationValues}. */
export const VIOLATION_COLUMNS = "id, key_id, user_id, intent, kind, severity, message, metadata, created_at";

/**
 * A violation's values for {@linkcode VIOLATION_COLUMNS}.
 *
 * @example The values of a violation
 * ```ts
 * import { newViolation } from "../contract/mod.ts";
 * import { violationValues } from "./violation_rows.ts";
 *
 * const v = newViolation("FORBIDDEN_SCOPE", { keyId: "k1", userId: "alice", message: "bad body" });
 * console.log(violationValues(v).length); // 9
 * ```
 *
 * @param v The violation.
 * @returns The values, metadata as JSON.
 */
export function violationValues(v: Violation): (string | null)[] {
  return [v.id, v.keyId, v.userId, v.intent, v.kind, v.severity, v.message, JSON.stringify(v.metadata), v.createdAt];
}

/**
 * A violation's row as a record.
 *
 * @param row A row holding {@linkcode VIOLATION_COLUMNS}.
 * @returns The violation.
 */
export function toViolation(row: SqlRow): Violation {
  return {
    id: text(row, "id"),
    keyId: text(row, "key_id"),
    userId: textOrNull(row, "user_id"),
    intent: textOrNull(row, "intent"),
    kind: text(row, "kind"),
    severity: text(row, "severity") as Severity,
    message: textOrNull(row, "message"),
    metadata: parsed<Record<string, unknown>>(row, "metadata"),
    createdAt: text(row, "created_at"),
  };
}
