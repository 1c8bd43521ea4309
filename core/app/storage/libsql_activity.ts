/**
 * The app's record of what agents did on libSQL: records written in groups (kept for reading in local and hybrid
 * modes, queued in the outbox for the cloud in hybrid and cloud modes, in the same write), a user's page newest first
 * (by id: `act_` + ULID sorts by time), the purge of records past their retention, and the OAuth client names of
 * grants.
 *
 * A kept record is a row of four values in two B-trees (app migration 15): `app_activity` keyed by `(user_id, id)`
 * (a user's records in order, the page and the purge) and its index `by_key` (one key's); `id`, `user_id` and `key_id`
 * are columns, the rest of the record is one JSON array that no query reads (`record`, {@linkcode packedRecord}).
 * Each value bound costs the native binding a few hundred nanoseconds, each B-tree an insert.
 *
 * @module
 */
import {
  deleteInChunks,
  type Executor,
  placeholders,
  type SqlRow,
  type SqlValue,
  type Statement,
} from "../../db/mod.ts";
import { ACTIVITY_ID_PREFIX, type ActivityOutcome, type ActivityRecord } from "../../contract/mod.ts";
import { encodeTime } from "ulid";

/** Where a group of records goes: kept here for reading, queued for the cloud, or both. */
export interface ActivityWrite {
  /** Keep the records for `GET /svc/activity` (local and hybrid modes). */
  keep: boolean;
  /** Queue them in the outbox (hybrid and cloud modes). */
  mirror: boolean;
}

/** The columns of a kept record, in the order {@linkcode insertActivity} binds them. */
const COLUMNS = "id, user_id, key_id, record";
/** One row's placeholders. */
const ROW = "(?, ?, ?, ?)";

/**
 * What a record keeps besides its id, user and key, as one JSON array (one value to bind, where each field was one):
 * `[at, agentId, intent, via, outcome, status, code, ms, client, approvalId]`, absent fields as `null`.
 *
 * @param r The record.
 * @returns The JSON text.
 */
function packedRecord(r: ActivityRecord): string {
  return JSON.stringify([
    r.at,
    r.agentId,
    r.intent,
    r.via,
    r.outcome,
    r.status,
    r.code ?? null,
    r.ms,
    r.client ?? null,
    r.approvalId ?? null,
  ]);
}

/**
 * A row read with {@linkcode COLUMNS} as a record (optional fields left out when empty).
 *
 * @param row The row.
 * @returns The record.
 */
function unpackedRecord(row: SqlRow): ActivityRecord {
  const [at, agentId, intent, via, outcome, status, code, ms, client, approvalId] = JSON.parse(
    String(row.record),
  ) as [
    string,
    string | null,
    string,
    string,
    ActivityOutcome,
    number,
    string | null,
    number,
    string | null,
    string | null,
  ];
  return {
    id: String(row.id),
    at,
    keyId: String(row.key_id),
    userId: String(row.user_id),
    agentId,
    intent,
    via: via === "mcp" ? "mcp" : "http",
    outcome,
    status,
    ...code === null ? {} : { code },
    ms,
    ...client === null ? {} : { client },
    ...approvalId === null ? {} : { approvalId },
  };
}

/** Rows a statement inserts at most: one statement for many rows costs far less than a statement a row. */
const ROWS_PER_INSERT = 50;

/**
 * Writes a group of records, in one transaction: multi-row inserts of up to {@linkcode ROWS_PER_INSERT} rows, on the
 * worker thread of a `file:` database (`Executor.writeAside`), on the connection itself otherwise.
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
      const args: SqlValue[] = [];
      for (const r of chunk) args.push(r.id, r.userId, r.keyId, packedRecord(r));
      statements.push({
        sql: `INSERT OR IGNORE INTO app_activity (${COLUMNS}) VALUES ${chunk.map(() => ROW).join(", ")}`,
        args,
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
  if (statements.length === 0) return;
  // A file's inserts run on its worker thread's connection, off the event loop (`Executor.writeAside`).
  if (db.writeAside !== undefined) await db.writeAside(statements);
  else if (statements.length === 1) await db.execute(statements[0]);
  else await db.batch(statements, "write");
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
    sql: `SELECT ${COLUMNS} FROM app_activity WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`,
    args: [...args, query.limit],
  });
  return rs.rows.map(unpackedRecord);
}

/**
 * Deletes the records made before `before` (by id, which starts with the time), in short chunks.
 *
 * @param db The app's database.
 * @param before Milliseconds since the epoch.
 * @returns How many were deleted.
 */
export async function purgeActivity(db: Executor, before: number): Promise<number> {
  const bound = ACTIVITY_ID_PREFIX + encodeTime(Math.max(0, before), 10);
  // The table is ordered by user first: each user's old records are a range of the key, found user by user. The users
  // are read from the key itself, one seek each (the next user after the last), never by walking the rows.
  const rs = await db.execute(
    `WITH RECURSIVE users (user_id) AS (
       SELECT MIN(user_id) FROM app_activity
       UNION ALL SELECT (SELECT MIN(user_id) FROM app_activity WHERE user_id > users.user_id) FROM users
       WHERE users.user_id IS NOT NULL)
     SELECT user_id FROM users WHERE user_id IS NOT NULL`,
  );
  let deleted = 0;
  for (const row of rs.rows) {
    deleted += await deleteInChunks(db, {
      table: "app_activity",
      key: "user_id, id",
      where: "user_id = ? AND id < ?",
      args: [String(row.user_id), bound],
    });
  }
  return deleted;
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
