/**
 * The app side's schema, as numbered migrations. Tables are prefixed `app_`
 * so that the app and the cloud can share one database file.
 *
 * @module
 */
import type { Migration } from "../../db/mod.ts";
import { OAUTH_MIGRATION, OAUTH_UNUSED_CLIENTS_MIGRATION } from "../../oauth/mod.ts";

/** The table recording applied app-side migrations. */
export const APP_MIGRATIONS_TABLE = "svc_app_migrations";

/** The ordered app-side migrations. */
export const APP_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "keys, agent claims and violations",
    statements: [
      `CREATE TABLE app_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        scopes TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        start TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      )`,
      "CREATE INDEX app_keys_by_user ON app_keys (user_id, created_at)",
      `CREATE TABLE app_agent_claims (
        agent_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      `CREATE TABLE app_violations (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        user_id TEXT,
        intent TEXT,
        kind TEXT NOT NULL,
        severity TEXT NOT NULL,
        message TEXT,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      "CREATE INDEX app_violations_by_time ON app_violations (created_at DESC, id DESC)",
      "CREATE INDEX app_violations_by_key ON app_violations (key_id, created_at DESC, id DESC)",
    ],
  },
  {
    version: 2,
    name: "outbox of what must reach the cloud",
    statements: [
      `CREATE TABLE app_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        ref TEXT NOT NULL,
        body TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 3,
    name: "violations appended in order; queued violations carry their own body",
    statements: [
      // Queued violations keep their report in the outbox, so the table needs no index on id.
      `UPDATE app_outbox SET body = (
         SELECT json_object('id', v.id, 'keyId', v.key_id, 'userId', v.user_id, 'intent', v.intent, 'kind', v.kind,
           'severity', v.severity, 'message', v.message, 'metadata', json(v.metadata), 'createdAt', v.created_at)
         FROM app_violations v WHERE v.id = app_outbox.ref)
       WHERE kind = 'violation' AND body IS NULL`,
      // An integer key appends each violation at the end of the table: no random-position UUID index to update.
      `CREATE TABLE app_violations_appended (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        user_id TEXT,
        intent TEXT,
        kind TEXT NOT NULL,
        severity TEXT NOT NULL,
        message TEXT,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      `INSERT INTO app_violations_appended (id, key_id, user_id, intent, kind, severity, message, metadata, created_at)
        SELECT id, key_id, user_id, intent, kind, severity, message, metadata, created_at
        FROM app_violations ORDER BY created_at, id`,
      "DROP TABLE app_violations",
      "ALTER TABLE app_violations_appended RENAME TO app_violations",
      "CREATE INDEX app_violations_by_key ON app_violations (key_id, seq)",
    ],
  },
  {
    version: 4,
    name: "the revocation feed's cursor",
    statements: [
      // One row: the last seq of the cloud's revocation feed applied here, so a restart resumes after it.
      `CREATE TABLE app_revocation_cursor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 5,
    name: "violations found by age, for their retention",
    statements: ["CREATE INDEX app_violations_by_time ON app_violations (created_at)"],
  },
  {
    version: 6,
    name: "keys may expire",
    // NULL: never (every key minted before, and every key a user mints by hand).
    statements: ["ALTER TABLE app_keys ADD COLUMN expires_at TEXT"],
  },
  { version: 7, ...OAUTH_MIGRATION },
  {
    version: 8,
    name: "key expiry and reroll: a key's scheduled revocation",
    statements: [
      // The end of a reroll's grace: the key is refused from then on (NULL: none scheduled).
      "ALTER TABLE app_keys ADD COLUMN revokes_at TEXT",
      // Why a revoked key was revoked, as its mirror tells the cloud: `oauth` (a grant ended) or NULL (its user).
      "ALTER TABLE app_keys ADD COLUMN revoke_reason TEXT",
    ],
  },
  { version: 9, ...OAUTH_UNUSED_CLIENTS_MIGRATION },
  {
    version: 10,
    name: "the project's policy as a hybrid app last read it",
    statements: [
      // One row: the project's policy (JSON) as last read from the cloud, so an app restarted while the cloud cannot
      // be read mints keys within the project's bounds instead of refusing to mint until the cloud is back.
      `CREATE TABLE app_cloud_policy (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        policy TEXT NOT NULL,
        read_at TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 11,
    name: "OAuth grants own their keys",
    statements: [
      // The grant a key is the access token of (NULL: a key minted by hand): revoking any key of a grant ends it.
      "ALTER TABLE app_keys ADD COLUMN grant_id TEXT",
      "CREATE INDEX app_keys_by_grant ON app_keys (grant_id) WHERE grant_id IS NOT NULL",
      // Keys minted before: each grant's key in force is known to it (the keys it replaced are revoked already).
      `UPDATE app_keys SET grant_id = (SELECT g.id FROM app_oauth_grants g WHERE g.key_id = app_keys.id)
        WHERE id IN (SELECT key_id FROM app_oauth_grants WHERE key_id IS NOT NULL)`,
      // A grant whose key in force was revoked has ended.
      `UPDATE app_oauth_grants SET revoked_at = (SELECT k.revoked_at FROM app_keys k WHERE k.id = app_oauth_grants.key_id)
        WHERE revoked_at IS NULL AND key_id IN (SELECT id FROM app_keys WHERE revoked_at IS NOT NULL)`,
    ],
  },
  {
    version: 12,
    name: "outbox items set aside only when the cloud refuses them, with the reason",
    statements: [
      // Why the cloud refused the item for good (its code and message); NULL: waiting. Items set aside
      // before this version for their failed tries alone wait again: a transient failure sets nothing aside.
      "ALTER TABLE app_outbox ADD COLUMN refused TEXT",
    ],
  },
  {
    version: 13,
    name: "approvals: agent runs waiting for their user's decision, with their payload",
    statements: [
      // The payload and the result stay in the app (never sent to the cloud); `status` moves once from pending.
      `CREATE TABLE app_approvals (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        key_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        agent_id TEXT,
        intent TEXT NOT NULL,
        title TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decided_at TEXT,
        reason TEXT,
        result TEXT,
        error TEXT
      )`,
      "CREATE INDEX app_approvals_by_user ON app_approvals (user_id, created_at DESC, id DESC)",
      "CREATE INDEX app_approvals_pending_by_key ON app_approvals (key_id) WHERE status = 'pending'",
    ],
  },
  {
    version: 14,
    name: "what agents did: one record per agent run, kept for its retention",
    statements: [
      // `id` is `act_` + a ULID minted at the app: it sorts by time, so pages (newest first) and the purge (older
      // than the retention) both run on an id range. No payload, no secret.
      `CREATE TABLE app_activity (
        id TEXT PRIMARY KEY,
        at TEXT NOT NULL,
        key_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        agent_id TEXT,
        intent TEXT NOT NULL,
        via TEXT NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER NOT NULL,
        code TEXT,
        ms REAL NOT NULL,
        client TEXT,
        approval_id TEXT
      )`,
      // A user's records newest first, and one key's of them.
      "CREATE INDEX app_activity_by_user ON app_activity (user_id, id)",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
  },
  {
    version: 15,
    name: "activity records in two B-trees, four values a row",
    statements: [
      // The table is keyed by (user_id, id), so it is itself a user's records in order (no rowid table, no index on
      // id, no by_user index), and only the columns a query reads stay columns: the rest of the record is one JSON
      // array (at, agent_id, intent, via, outcome, status, code, ms, client, approval_id), bound as one value.
      // A row cost 5.0 µs of CPU to write on Deno and 4.5 on Bun, now 3.1 on both (bench/activity_row_cost.ts).
      `CREATE TABLE app_activity_keyed (
        id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (user_id, id)
      ) WITHOUT ROWID`,
      `INSERT INTO app_activity_keyed (id, user_id, key_id, record)
        SELECT id, user_id, key_id,
          json_array(at, agent_id, intent, via, outcome, status, code, ms, client, approval_id)
        FROM app_activity`,
      "DROP TABLE app_activity",
      "ALTER TABLE app_activity_keyed RENAME TO app_activity",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
  },
  {
    version: 16,
    name: "a counter of key changes, read by the key cache when another connection committed",
    statements: [
      // One row whose `seq` moves whenever what an agent request reads of a key may have changed (a key stored,
      // deleted, revoked, its expiry or scheduled revocation set; not a `lastUsedAt` touch). The key cache reads it
      // once another connection committed, and forgets its keys only when it moved: the activity records a file's
      // worker thread writes (dozens of commits a second under load) are another connection's commits, and without
      // it each one made every cached key be read again (core/db/change_cache.ts).
      `CREATE TABLE app_key_changes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL
      )`,
      "INSERT INTO app_key_changes (id, seq) VALUES (1, 0)",
      `CREATE TRIGGER app_keys_cached_inserted AFTER INSERT ON app_keys
        BEGIN UPDATE app_key_changes SET seq = seq + 1 WHERE id = 1; END`,
      `CREATE TRIGGER app_keys_cached_changed
        AFTER UPDATE OF id, user_id, name, scopes, agent_id, hash, start, created_at, revoked_at, expires_at, revokes_at,
          revoke_reason, grant_id ON app_keys
        BEGIN UPDATE app_key_changes SET seq = seq + 1 WHERE id = 1; END`,
      `CREATE TRIGGER app_keys_cached_deleted AFTER DELETE ON app_keys
        BEGIN UPDATE app_key_changes SET seq = seq + 1 WHERE id = 1; END`,
    ],
  },
];
