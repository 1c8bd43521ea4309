/**
 * The app side's storage on libSQL: a URL (`file:`, `:memory:`, remote) or an
 * injected Client, through one executor.
 *
 * @module
 */
import { type Executor, placeholders, type ResultSet, type Statement } from "../../db/mod.ts";
import { type DatabaseInput, migrate, openDatabase, type OpenDatabaseOptions } from "../../db/mod.ts";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE } from "./app_migrations.ts";
import type { AgentIdKind, KeyRecord } from "../../contract/mod.ts";
import {
  insertKey,
  KEY_COLUMNS,
  type KeyTable,
  revokeKeyOfUser,
  scheduleKeyRevocation,
  selectKeysOfUser,
  toKey,
  touchKey,
} from "../../keys/mod.ts";
import { insertViolation, selectLatestViolations, toViolation, type ViolationTable } from "../../violations/mod.ts";
import type { AppStorage, FeedRevocation, MirrorOption, OutboxItem, OutboxPurge } from "./app_storage.ts";
import type { ApprovalStep, Violation } from "../../contract/mod.ts";
import { type ChangeCache, createChangeCache } from "../../db/mod.ts";
import type { AutoRevokePolicy } from "../../contract/mod.ts";
import { autoRevokeKey, readRevocationCursor, writeRevocations } from "./libsql_revocations.ts";
import { purgeOutbox, purgeViolations } from "./libsql_retention.ts";
import { endGrantOfKey, grantKeyStatements } from "./libsql_grant_keys.ts";
import { PLATFORM } from "../../platform/mod.ts";
import type { ActivityRecord } from "../../contract/mod.ts";
import {
  type ActivityWrite,
  grantClientNames,
  insertActivity,
  purgeActivity,
  selectActivity,
} from "./libsql_activity.ts";

/** Keys whose record is kept in process, by hash. */
const KEY_CACHE_SIZE = 50_000;
const OUTBOX_SELECT = "SELECT seq, kind, ref, body, attempts FROM app_outbox";
/** The app's keys, in the keys core's SQL. */
const KEYS: KeyTable = { table: "app_keys" };
/** The app's violations, in the violations core's SQL. */
const VIOLATIONS: ViolationTable = { table: "app_violations" };

/**
 * Opens the app side's storage and brings its schema up to date.
 *
 * @param input A libSQL URL or Client.
 * @param options Auth token for a remote database; `now`, the key cache's clock (tests inject one).
 * @returns The storage.
 */
export async function openAppStorage(
  input: DatabaseInput,
  options: OpenDatabaseOptions & { now?: () => number } = {},
): Promise<AppStorage> {
  const executor = await openDatabase(input, options);
  try {
    await migrate(executor, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
  } catch (error) {
    executor.close();
    throw error;
  }
  return new LibsqlAppStorage(executor, options.now);
}

/** The counter the key cache reads once another connection committed (app migration 16). */
const KEY_CHANGES = "SELECT seq FROM app_key_changes WHERE id = 1";

/**
 * The storage. A key's record (read by every agent request) is cached by
 * hash until a key changes under it (another connection committed and
 * `app_key_changes` moved, or, remote, at most a second); a mint or revoke in
 * this process updates it.
 */
class LibsqlAppStorage implements AppStorage {
  #db: Executor;
  #keys: ChangeCache<string, KeyRecord | null>;

  readonly db: Executor;

  #now: () => number;

  constructor(db: Executor, now: () => number = PLATFORM.now) {
    this.db = db;
    this.#db = db;
    this.#now = now;
    this.#keys = createChangeCache(db, {
      size: KEY_CACHE_SIZE,
      now,
      // Another connection's commit (another process, or this file's worker thread writing activity records) keeps
      // the cached keys unless `app_key_changes` moved (app migration 16). A missing row reads as a change every time.
      changes: async () => (await db.execute(KEY_CHANGES)).rows[0]?.seq ?? Symbol("no row"),
    });
  }

  async insertKey(record: KeyRecord, kind: AgentIdKind, options: MirrorOption = {}): Promise<boolean> {
    const insert = kind === "claim"
      ? insertKey(KEYS, record, {
        sql: "EXISTS (SELECT 1 FROM app_agent_claims WHERE agent_id = ? AND user_id = ?)",
        args: [record.agentId, record.userId],
      })
      : insertKey(KEYS, record);
    const statements: Statement[] = [insert, ...grantKeyStatements(record)];
    if (kind === "claim") {
      statements.unshift({
        sql: "INSERT INTO app_agent_claims (agent_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        args: [record.agentId, record.userId, record.createdAt],
      });
    }
    if (options.mirror) statements.push(enqueueKey(record.id, record.createdAt));
    if (statements.length === 1) {
      await this.#db.execute(insert);
      this.#keys.delete(record.hash);
      return true;
    }
    const results = await this.#db.batch(statements, "write");
    this.#keys.delete(record.hash);
    return results[kind === "claim" ? 1 : 0].rowsAffected === 1;
  }

  async listKeys(userId: string): Promise<KeyRecord[]> {
    const rs = await this.#db.execute(selectKeysOfUser(KEYS, userId));
    return rs.rows.map(toKey);
  }

  findKeyByHash(hash: string): Promise<KeyRecord | null> {
    return this.#keys.read(hash, async () => {
      // With the key's grant: its keys share one rate bucket.
      const rs = await this.#db.execute({
        sql: `SELECT ${KEY_COLUMNS}, grant_id FROM app_keys WHERE hash = ?`,
        args: [hash],
      });
      return rs.rows.length ? toKey(rs.rows[0]) : null;
    });
  }

  async keyRevocationByHash(hash: string): Promise<{ revokedAt: string | null } | null> {
    const record = await this.findKeyByHash(hash);
    return record === null ? null : { revokedAt: record.revokedAt };
  }

  async revokeKey(
    userId: string,
    id: string,
    at: string,
    options: MirrorOption & { reason?: "oauth" } = {},
  ): Promise<KeyRecord | null> {
    if (options.reason === undefined) return await this.#revokeEndingGrant(userId, id, at, options.mirror ?? false);
    const revoke = revokeKeyOfUser(KEYS, userId, id, at);
    const reason: Statement[] = options.reason === undefined ? [] : [{
      sql: "UPDATE app_keys SET revoke_reason = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
      args: [options.reason, id, userId],
    }];
    if (!options.mirror && reason.length === 0) return this.#revoked(await this.#db.execute(revoke));
    const results = await this.#db.batch([
      ...reason,
      revoke,
      ...options.mirror
        ? [{
          // Only when this call revoked it: the OAuth server revokes an ended grant's key again on each retry.
          sql: `INSERT INTO app_outbox (kind, ref, created_at) SELECT 'key', id, ? FROM app_keys
                WHERE id = ? AND user_id = ? AND revoked_at = ?`,
          args: [at, id, userId, at],
        }]
        : [],
    ], "write");
    return this.#revoked(results[reason.length]);
  }

  /** A revoke by the key's user: it ends the key's grant, if it has one, in the same transaction. */
  async #revokeEndingGrant(userId: string, id: string, at: string, mirror: boolean): Promise<KeyRecord | null> {
    const done = await this.#db.transaction(async (tx) => {
      const rs = await tx.execute(revokeKeyOfUser(KEYS, userId, id, at));
      if (rs.rows.length === 0) return null;
      if (mirror) await tx.execute(enqueueKey(id, at));
      return { rs, hashes: await endGrantOfKey(tx, id, at, mirror) };
    }, "write");
    if (done === null) return null;
    for (const hash of done.hashes) this.#keys.delete(hash);
    return this.#revoked(done.rs);
  }

  #revoked(rs: ResultSet): KeyRecord | null {
    if (rs.rows.length === 0) return null;
    const record = toKey(rs.rows[0]);
    this.#keys.delete(record.hash);
    return record;
  }

  async rerollKey(
    userId: string,
    id: string,
    record: KeyRecord,
    revokesAt: string,
    now: string,
    options: MirrorOption = {},
  ): Promise<boolean> {
    const inForce = {
      // Never a key of an OAuth grant: a successor outside the grant would outlive its end.
      sql: `EXISTS (SELECT 1 FROM app_keys WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND grant_id IS NULL
              AND (revokes_at IS NULL OR revokes_at > ?) AND (expires_at IS NULL OR expires_at > ?))`,
      args: [id, userId, now, now],
    };
    const statements: Statement[] = [
      insertKey(KEYS, record, inForce),
      // Only once the successor is stored: a key out of force is left as it is.
      scheduleKeyRevocation(KEYS, userId, id, revokesAt, {
        sql: "EXISTS (SELECT 1 FROM app_keys WHERE id = ?)",
        args: [record.id],
      }),
    ];
    if (options.mirror) {
      // The old key's item carries the reroll, so the cloud audits it at the time it happened (key.reroll).
      const reroll = JSON.stringify({ reroll: { at: now, successor: record.id } });
      statements.push(enqueueKey(record.id, now), enqueueKey(id, now, record.id, reroll));
    }
    const [inserted, scheduled] = await this.#db.batch(statements, "write");
    this.#keys.delete(record.hash);
    if (scheduled.rows.length) this.#keys.delete(toKey(scheduled.rows[0]).hash);
    return inserted.rowsAffected === 1;
  }

  async findKeyById(id: string): Promise<(KeyRecord & { revokeReason?: "oauth" }) | null> {
    const rs = await this.#db.execute({
      sql: `SELECT ${KEY_COLUMNS}, revoke_reason, grant_id FROM app_keys WHERE id = ?`,
      args: [id],
    });
    if (rs.rows.length === 0) return null;
    const record = toKey(rs.rows[0]);
    return rs.rows[0].revoke_reason === "oauth" ? { ...record, revokeReason: "oauth" } : record;
  }

  async touchKeys(usedAt: ReadonlyMap<string, string>): Promise<void> {
    if (usedAt.size === 0) return;
    await this.#db.batch(
      [...usedAt].map(([id, at]) => touchKey(KEYS, id, at)),
      "write",
    );
  }

  async queueApprovalStep(step: ApprovalStep): Promise<void> {
    await this.#db.execute({
      sql: "INSERT INTO app_outbox (kind, ref, body, created_at) VALUES ('approval', ?, ?, ?)",
      args: [`${step.approvalId}:${step.status}`, JSON.stringify(step), step.decidedAt ?? step.createdAt],
    });
  }

  async insertViolations(violations: readonly Violation[], options: MirrorOption = {}): Promise<void> {
    // One prepared statement per table, run once per row, all in one transaction.
    const statements: Statement[] = [];
    for (const v of violations) {
      statements.push(insertViolation(VIOLATIONS, v));
      if (options.mirror) {
        statements.push({
          sql: "INSERT INTO app_outbox (kind, ref, body, created_at) VALUES ('violation', ?, ?, ?)",
          args: [v.id, JSON.stringify(v), v.createdAt],
        });
      }
    }
    if (statements.length === 1) await this.#db.execute(statements[0]);
    else if (statements.length > 1) await this.#db.batch(statements, "write");
  }

  async outboxHead(limit: number): Promise<OutboxItem[]> {
    const rs = await this.#db.batch([
      { sql: `${OUTBOX_SELECT} WHERE kind = 'key' AND refused IS NULL ORDER BY seq LIMIT ?`, args: [limit] },
      { sql: `${OUTBOX_SELECT} WHERE kind <> 'key' AND refused IS NULL ORDER BY seq LIMIT ?`, args: [limit] },
    ], "read");
    return [...rs[0].rows, ...rs[1].rows].slice(0, limit).map((r) => ({
      seq: Number(r.seq),
      kind: String(r.kind) as OutboxItem["kind"],
      ref: String(r.ref),
      body: r.body === null ? null : String(r.body),
      attempts: Number(r.attempts),
    }));
  }

  async outboxDone(seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    await this.#db.execute({
      sql: `DELETE FROM app_outbox WHERE seq IN (${placeholders(seqs.length)})`,
      args: [...seqs],
    });
  }

  async outboxFailed(seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    await this.#db.execute({
      sql: `UPDATE app_outbox SET attempts = attempts + 1 WHERE seq IN (${placeholders(seqs.length)})`,
      args: [...seqs],
    });
  }

  async outboxSetAside(seqs: readonly number[], reason: string): Promise<void> {
    if (seqs.length === 0) return;
    await this.#db.execute({
      sql: `UPDATE app_outbox SET refused = ? WHERE seq IN (${placeholders(seqs.length)})`,
      args: [reason, ...seqs],
    });
  }

  async outboxSize(): Promise<number> {
    const rs = await this.#db.execute("SELECT COUNT(*) AS n FROM app_outbox WHERE refused IS NULL");
    return Number(rs.rows[0].n);
  }

  async outboxSetAsideByReason(): Promise<{ reason: string; count: number }[]> {
    const rs = await this.#db.execute(
      "SELECT refused AS reason, COUNT(*) AS n FROM app_outbox WHERE refused IS NOT NULL GROUP BY refused ORDER BY n DESC",
    );
    return rs.rows.map((r) => ({ reason: String(r.reason), count: Number(r.n) }));
  }

  purgeOutbox(options: OutboxPurge): Promise<{ expired: number; dropped: number }> {
    return purgeOutbox(this.#db, options);
  }

  purgeViolations(before: string): Promise<number> {
    return purgeViolations(this.#db, before);
  }

  insertActivity(records: readonly ActivityRecord[], where: ActivityWrite): Promise<void> {
    return insertActivity(this.#db, records, where);
  }

  listActivity(query: { userId: string; keyId?: string; before?: string; limit: number }): Promise<ActivityRecord[]> {
    return selectActivity(this.#db, query);
  }

  purgeActivity(before: number): Promise<number> {
    return purgeActivity(this.#db, before);
  }

  grantClientNames(grantIds: readonly string[]): Promise<Map<string, string>> {
    return grantClientNames(this.#db, grantIds);
  }

  async listViolations(options: { limit: number; keyId?: string }): Promise<Violation[]> {
    const rs = await this.#db.execute(selectLatestViolations(VIOLATIONS, options));
    return rs.rows.map(toViolation);
  }

  revocationCursor(): Promise<number> {
    return readRevocationCursor(this.#db);
  }

  async applyRevocations(revocations: readonly FeedRevocation[], nextSeq: number): Promise<void> {
    // Revoked by id: drop the cached records by their hashes, so the next request reads the revocation.
    for (const hash of await writeRevocations(this.#db, revocations, nextSeq, this.#now())) this.#keys.delete(hash);
  }

  async autoRevoke(
    keyId: string,
    policy: AutoRevokePolicy,
    at: string,
    options: MirrorOption = {},
  ): Promise<Violation | null> {
    const revoked = await autoRevokeKey(this.#db, keyId, policy, at, options.mirror ?? false);
    if (revoked === null) return null;
    for (const hash of revoked.hashes) this.#keys.delete(hash); // the next request of a key reads its revocation
    return revoked.violation;
  }

  async savedCloudPolicy(): Promise<string | null> {
    const rs = await this.#db.execute("SELECT policy FROM app_cloud_policy WHERE id = 1");
    return rs.rows.length ? String(rs.rows[0].policy) : null;
  }

  async saveCloudPolicy(policy: string, at: string): Promise<void> {
    await this.#db.execute({
      sql: `INSERT INTO app_cloud_policy (id, policy, read_at) VALUES (1, ?, ?)
            ON CONFLICT (id) DO UPDATE SET policy = excluded.policy, read_at = excluded.read_at`,
      args: [policy, at],
    });
  }

  async inMemory(): Promise<boolean> {
    // An in-memory (or temporary) database reports an empty file name for `main`; a remote one may refuse the pragma.
    const rs = await this.#db.execute("PRAGMA database_list").catch(() => null);
    const main = rs?.rows.find((r) => r.name === "main");
    return main !== undefined && (main.file === null || main.file === "");
  }

  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }
}

/**
 * Queues a key for mirroring, if it was stored by the statements before it in the batch (and, with `onlyWith`,
 * that key too); `body` is what the item tells the cloud besides the key's latest state (a reroll).
 */
function enqueueKey(id: string, at: string, onlyWith?: string, body: string | null = null): Statement {
  return onlyWith === undefined
    ? {
      sql: "INSERT INTO app_outbox (kind, ref, body, created_at) SELECT 'key', id, ?, ? FROM app_keys WHERE id = ?",
      args: [body, at, id],
    }
    : {
      sql: `INSERT INTO app_outbox (kind, ref, body, created_at) SELECT 'key', id, ?, ? FROM app_keys WHERE id = ?
            AND EXISTS (SELECT 1 FROM app_keys WHERE id = ?)`,
      args: [body, at, id, onlyWith],
    };
}
