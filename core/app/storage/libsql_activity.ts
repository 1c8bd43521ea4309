/**
 * The app's record of what agents did on libSQL: records written in groups (kept for reading in local and hybrid
 * modes, queued in the outbox for the cloud in hybrid and cloud modes, in the same write), a user's page newest first
 * (by id: `act_` + ULID sorts by time), the purge of records past their retention, and the OAuth client names of
 * grants.
 *
 * @module
 */
import { deleteInChunks, type Executor, placeholders, type Statement } from "../../db/mod.ts";
import { ACTIVITY_ID_PREFIX, type ActivityRecord } from "../../contract/mod.ts";
import { ACTIVITY_COLUMN_COUNT, ACTIVITY_COLUMNS, activityFromRow, activityValues } from "../../activity/mod.ts";
import { encodeTime } from "ulid";

/** Where a group of records goes: kept here for reading, queued for the cloud, or both. */
export interface ActivityWrite {
  /** Keep the records for `GET /svc/activity` (local and hybrid modes). */
  keep: boolean;
  /** Queue them in the outbox (hybrid and cloud modes). */
  mirror: boolean;
}

/** Rows a statement inserts at most: one statement for many rows costs far less than a statement a row. */
const ROWS_PER_INSERT = 50;

/**
 * Writes a group of records, in one transaction: multi-row inserts of up to {@linkcode ROWS_PER_INSERT} rows.
 *
 * @param db The app's database.
 * @param records The records.
 * @param where Kept, queued, or both.
 */
export async function insertActivity(
  db: Executor,
  records: readonly ActivityRecord[],
  where: ActivityWrite,
): Promise<void> {
  const statements: Statement[] = [];
  for (let i = 0; i < records.length; i += ROWS_PER_INSERT) {
    const chunk = records.slice(i, i + ROWS_PER_INSERT);
    if (where.keep) {
      const row = `(${placeholders(ACTIVITY_COLUMN_COUNT)})`;
      statements.push({
        sql: `INSERT OR IGNORE INTO app_activity (${ACTIVITY_COLUMNS}) VALUES ${chunk.map(() => row).join(", ")}`,
        args: chunk.flatMap(activityValues),
      });
    }
    if (where.mirror) {
      statements.push({
        sql: `INSERT INTO app_outbox (kind, ref, body, created_at) VALUES ${
          chunk.map(() => "('activity', ?, ?, ?)").join(", ")
        }`,
        args: chunk.flatMap((r) => [r.id, JSON.stringify(r), r.at]),
      });
    }
  }
  if (statements.length === 1) await db.execute(statements[0]);
  else if (statements.length > 1) await db.batch(statements, "write");
}

/**
 * A user's records, newest first.
 *
 * @param db The app's database.
 * @param query The user, the key (optional), the id the page starts after (optional) and the most records.
 * @returns The records.
 */
export async function selectActivity(
  db: Executor,
  query: { userId: string; keyId?: string; before?: string; limit: number },
): Promise<ActivityRecord[]> {
  const where = ["user_id = ?"];
  const args: (string | number)[] = [query.userId];
  if (query.keyId !== undefined) {
    where.push("key_id = ?");
    args.push(query.keyId);
  }
  if (query.before !== undefined) {
    where.push("id < ?");
    args.push(query.before);
  }
  const rs = await db.execute({
    sql: `SELECT ${ACTIVITY_COLUMNS} FROM app_activity WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`,
    args: [...args, query.limit],
  });
  return rs.rows.map(activityFromRow);
}

/**
 * Deletes the records made before `before` (by id, which starts with the time), in short chunks.
 *
 * @param db The app's database.
 * @param before Milliseconds since the epoch.
 * @returns How many were deleted.
 */
export function purgeActivity(db: Executor, before: number): Promise<number> {
  const bound = ACTIVITY_ID_PREFIX + encodeTime(Math.max(0, before), 10);
  return deleteInChunks(db, { table: "app_activity", where: "id < ?", args: [bound] });
}

/**
 * The OAuth client's name of each grant found.
 *
 * @param db The app's database.
 * @param grantIds The grants.
 * @returns Name by grant id.
 */
export async function grantClientNames(db: Executor, grantIds: readonly string[]): Promise<Map<string, string>> {
  const rs = await db.execute({
    sql: `SELECT id, client_name FROM app_oauth_grants WHERE id IN (${placeholders(grantIds.length)})`,
    args: [...grantIds],
  });
  return new Map(rs.rows.map((r) => [String(r.id), String(r.client_name)]));
}
