/**
 * An activity record as a row, one way for the app's table (`app_activity`) and the cloud's (`cloud_activity`): the
 * columns in their order, a record's values in that order, and a row read back as a record.
 *
 * @module
 */
import { integer, type SqlRow, type SqlValue, text, textOrNull } from "../db/mod.ts";
import type { ActivityOutcome, ActivityRecord } from "../contract/mod.ts";

/** The columns of a record, in the order of {@linkcode activityValues}. */
export const ACTIVITY_COLUMNS =
  "id, at, key_id, user_id, agent_id, intent, via, outcome, status, code, ms, client, approval_id";

/** How many columns a record fills. */
export const ACTIVITY_COLUMN_COUNT = 13;

/**
 * A record's values, in the order of {@linkcode ACTIVITY_COLUMNS} (absent optional fields as `NULL`).
 *
 * @param r The record.
 * @returns The values.
 */
export function activityValues(r: ActivityRecord): SqlValue[] {
  return [
    r.id,
    r.at,
    r.keyId,
    r.userId,
    r.agentId,
    r.intent,
    r.via,
    r.outcome,
    r.status,
    r.code ?? null,
    r.ms,
    r.client ?? null,
    r.approvalId ?? null,
  ];
}

/**
 * A row read with {@linkcode ACTIVITY_COLUMNS} as a record (optional fields left out when empty).
 *
 * @param row The row.
 * @returns The record.
 */
export function activityFromRow(row: SqlRow): ActivityRecord {
  const code = textOrNull(row, "code");
  const client = textOrNull(row, "client");
  const approvalId = textOrNull(row, "approval_id");
  return {
    id: text(row, "id"),
    at: text(row, "at"),
    keyId: text(row, "key_id"),
    userId: text(row, "user_id"),
    agentId: textOrNull(row, "agent_id"),
    intent: text(row, "intent"),
    via: row.via === "mcp" ? "mcp" : "http",
    outcome: text(row, "outcome") as ActivityOutcome,
    status: integer(row, "status"),
    ...code === null ? {} : { code },
    ms: Number(row.ms),
    ...client === null ? {} : { client },
    ...approvalId === null ? {} : { approvalId },
  };
}
