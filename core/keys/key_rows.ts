/**
 * A key's row, the same on both sides: its columns, its values in their order, and the row read back as a record.
 *
 * @module
 */
import type { KeyRecord } from "../contract/mod.ts";
import { parsed, type SqlRow, type SqlValue, text, textOrNull } from "../db/mod.ts";

/**
 * The columns of a key, in the order of {@linkcode keyValues} (a project's table adds `project_id` before them):
 * `expires_at` (NULL: never) and `revokes_at` (a scheduled revocation, such as a reroll's grace end) last.
 */
export const KEY_COLUMNS =
  "id, user_id, name, scopes, agent_id, hash, start, created_at, last_used_at, revoked_at, expires_at, revokes_at";

/**
 * A key's values for {@linkcode KEY_COLUMNS}.
 *
 * @example The values of a minted key
 * ```ts
 * import { mintAgentKey } from "../contract/mod.ts";
 * import { keyValues } from "./key_rows.ts";
 *
 * const { record } = await mintAgentKey("alice", { name: "laptop", scopes: [], agentId: "alice" });
 * console.log(keyValues(record).length); // 12
 * ```
 *
 * @param record The key.
 * @returns Its values, scopes as JSON.
 */
export function keyValues(record: KeyRecord): SqlValue[] {
  return [
    record.id,
    record.userId,
    record.name,
    JSON.stringify(record.scopes),
    record.agentId,
    record.hash,
    record.start,
    record.createdAt,
    record.lastUsedAt,
    record.revokedAt,
    record.expiresAt ?? null,
    record.revokesAt ?? null,
  ];
}

/**
 * A key's row as a record.
 *
 * @example A row read back
 * ```ts
 * import { toKey } from "./key_rows.ts";
 *
 * const key = toKey({
 *   id: "k1", user_id: "alice", name: "laptop", scopes: '["notes:read"]', agent_id: "alice",
 *   hash: "h", start: "svc_live_abc", created_at: "2026-01-01T00:00:00.000Z", last_used_at: null, revoked_at: null,
 * });
 * console.log(key.scopes); // ["notes:read"]
 * ```
 *
 * @param row A row holding {@linkcode KEY_COLUMNS}.
 * @returns The record.
 */
export function toKey(row: SqlRow): KeyRecord {
  return {
    id: text(row, "id"),
    userId: text(row, "user_id"),
    name: text(row, "name"),
    scopes: parsed<string[]>(row, "scopes"),
    agentId: text(row, "agent_id"),
    hash: text(row, "hash"),
    start: text(row, "start"),
    createdAt: text(row, "created_at"),
    lastUsedAt: textOrNull(row, "last_used_at"),
    revokedAt: textOrNull(row, "revoked_at"),
    expiresAt: textOrNull(row, "expires_at"),
    revokesAt: textOrNull(row, "revokes_at"),
    // Only where the query reads it (KEY_COLUMNS leaves it out: it is never listed or mirrored).
    ...typeof row.grant_id === "string" ? { grantId: row.grant_id } : {},
  };
}
