/**
 * The app side's storage on libSQL: a URL (`file:`, `:memory:`, remote) or an
 * injected Client.
 *
 * @module
 */
import type { Client, InStatement, Row } from "@libsql/client";
import { type DatabaseInput, migrate, openDatabase, type OpenDatabaseOptions } from "./database.ts";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE } from "./app_migrations.ts";
import type { AgentIdKind, KeyRecord } from "./keys.ts";
import type { AppStorage } from "./storage.ts";
import type { Severity, Violation } from "./violations.ts";

const KEY_COLUMNS = "id, user_id, name, scopes, agent_id, hash, start, created_at, last_used_at, revoked_at";

/**
 * Opens the app side's storage and brings its schema up to date.
 *
 * @param input A libSQL URL or Client.
 * @param options Auth token for a remote database.
 * @returns The storage.
 */
export async function openAppStorage(input: DatabaseInput, options: OpenDatabaseOptions = {}): Promise<AppStorage> {
  const { client, owned } = await openDatabase(input, options);
  try {
    await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
  } catch (error) {
    if (owned) client.close();
    throw error;
  }
  return new LibsqlAppStorage(client, owned);
}

class LibsqlAppStorage implements AppStorage {
  #client: Client;
  #owned: boolean;

  constructor(client: Client, owned: boolean) {
    this.#client = client;
    this.#owned = owned;
  }

  async insertKey(record: KeyRecord, kind: AgentIdKind): Promise<boolean> {
    const values = [
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
    ];
    if (kind !== "claim") {
      await this.#client.execute({
        sql: `INSERT INTO app_keys (${KEY_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)`,
        args: values,
      });
      return true;
    }
    const statements: InStatement[] = [
      {
        sql: "INSERT INTO app_agent_claims (agent_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        args: [record.agentId, record.userId, record.createdAt],
      },
      {
        sql: `INSERT INTO app_keys (${KEY_COLUMNS}) SELECT ?,?,?,?,?,?,?,?,?,?
              WHERE EXISTS (SELECT 1 FROM app_agent_claims WHERE agent_id = ? AND user_id = ?)`,
        args: [...values, record.agentId, record.userId],
      },
    ];
    const results = await this.#client.batch(statements, "write");
    return results[1].rowsAffected === 1;
  }

  async listKeys(userId: string): Promise<KeyRecord[]> {
    const rs = await this.#client.execute({
      sql: `SELECT ${KEY_COLUMNS} FROM app_keys WHERE user_id = ? ORDER BY created_at, id`,
      args: [userId],
    });
    return rs.rows.map(toKey);
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | null> {
    const rs = await this.#client.execute({ sql: `SELECT ${KEY_COLUMNS} FROM app_keys WHERE hash = ?`, args: [hash] });
    return rs.rows.length ? toKey(rs.rows[0]) : null;
  }

  async revokeKey(userId: string, id: string, at: string): Promise<KeyRecord | null> {
    const rs = await this.#client.execute({
      sql:
        `UPDATE app_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND user_id = ? RETURNING ${KEY_COLUMNS}`,
      args: [at, id, userId],
    });
    return rs.rows.length ? toKey(rs.rows[0]) : null;
  }

  async touchKeys(usedAt: ReadonlyMap<string, string>): Promise<void> {
    if (usedAt.size === 0) return;
    await this.#client.batch(
      [...usedAt].map(([id, at]) => ({
        sql: "UPDATE app_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        args: [at, id, at],
      })),
      "write",
    );
  }

  async insertViolation(v: Violation): Promise<void> {
    await this.#client.execute({
      sql: `INSERT INTO app_violations (id, key_id, user_id, intent, kind, severity, message, metadata, created_at)
            VALUES (?,?,?,?,?,?,?,?,?)`,
      args: [v.id, v.keyId, v.userId, v.intent, v.kind, v.severity, v.message, JSON.stringify(v.metadata), v.createdAt],
    });
  }

  async listViolations(options: { limit: number; keyId?: string }): Promise<Violation[]> {
    const where = options.keyId === undefined ? "" : "WHERE key_id = ?";
    const rs = await this.#client.execute({
      sql: `SELECT * FROM app_violations ${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
      args: options.keyId === undefined ? [options.limit] : [options.keyId, options.limit],
    });
    return rs.rows.map(toViolation);
  }

  close(): Promise<void> {
    if (this.#owned) this.#client.close();
    return Promise.resolve();
  }
}

function toKey(row: Row): KeyRecord {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    name: String(row.name),
    scopes: JSON.parse(String(row.scopes)),
    agentId: String(row.agent_id),
    hash: String(row.hash),
    start: String(row.start),
    createdAt: String(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : String(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : String(row.revoked_at),
  };
}

function toViolation(row: Row): Violation {
  return {
    id: String(row.id),
    keyId: String(row.key_id),
    userId: row.user_id === null ? null : String(row.user_id),
    intent: row.intent === null ? null : String(row.intent),
    kind: String(row.kind),
    severity: String(row.severity) as Severity,
    message: row.message === null ? null : String(row.message),
    metadata: JSON.parse(String(row.metadata)),
    createdAt: String(row.created_at),
  };
}
