/**
 * The agent keys' tables (keys, agent claims, key counts, a user's revoke-all, ended grants): its steps of each of
 * the cloud's migrations, by version. `cloud/database` applies them in its one ordered list; never edit a step that
 * has shipped: add one to a new version.
 *
 * @module
 */

/** The columns `cloud_keys` had from migration 6 on, copied as they are by migration 7. */
const KEY_COLUMNS_V6 =
  "id, project_id, user_id, name, scopes, agent_id, hash, start, created_at, last_used_at, revoked_at, revoke_reason";

/** The agent keys' tables: the statements of each cloud migration that has some, by version. */
export const keyMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  1: [
    `CREATE TABLE cloud_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
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
    "CREATE INDEX cloud_keys_by_user ON cloud_keys (project_id, user_id, created_at, id)",
    `CREATE TABLE cloud_agent_claims (
        project_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (project_id, agent_id)
      )`,
  ],
  5: [
    // Keys of a project across users, newest first, for listing with filters.
    "CREATE INDEX cloud_keys_by_project ON cloud_keys (project_id, created_at DESC, id DESC)",
  ],
  6: [
    "ALTER TABLE cloud_keys ADD COLUMN revoke_reason TEXT",
  ],
  7: [
    // A key is identified by (project_id, id), and its hash is unique within its project only, so
    // what one project may store never depends on what another holds. Agent auth finds a key by
    // hash alone: when two projects hold one hash (only on purpose, by someone who knows the key),
    // the first holder, the lowest `seq`, is the one it authenticates as, active or revoked.
    // `seq` is the rowid, named so that VACUUM keeps it; copied from the old rowids, in order.
    `CREATE TABLE cloud_keys_v7 (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        scopes TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        start TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT,
        revoke_reason TEXT,
        UNIQUE (project_id, id),
        UNIQUE (project_id, hash)
      )`,
    // No trigger is on the new table yet: copying revoked keys adds no feed row.
    `INSERT INTO cloud_keys_v7 (seq, ${KEY_COLUMNS_V6}) SELECT rowid, ${KEY_COLUMNS_V6} FROM cloud_keys ORDER BY rowid`,
    // Dropping the table drops its indexes and the feed's triggers; no other table refers to it.
    "DROP TABLE cloud_keys",
    "ALTER TABLE cloud_keys_v7 RENAME TO cloud_keys",
    "CREATE INDEX cloud_keys_by_user ON cloud_keys (project_id, user_id, created_at, id)",
    "CREATE INDEX cloud_keys_by_project ON cloud_keys (project_id, created_at DESC, id DESC)",
    // Agent auth: every holder of a hash, in `seq` order (the rowid ends each index entry).
    "CREATE INDEX cloud_keys_by_hash ON cloud_keys (hash)",
  ],
  11: [
    // When the key stops working (NULL: never): a lifetime given at minting, or an OAuth access token's.
    "ALTER TABLE cloud_keys ADD COLUMN expires_at TEXT",
    // When the key's scheduled revocation takes effect (a reroll's grace end; NULL: none). Until it is written
    // as a revocation (reason `reroll`, so the feed and the audit log carry it), agent auth refuses the key from
    // then on by itself.
    "ALTER TABLE cloud_keys ADD COLUMN revokes_at TEXT",
    // The scheduled revocations not yet written, found by project and time.
    `CREATE INDEX cloud_keys_revocations_due ON cloud_keys (project_id, revokes_at)
        WHERE revokes_at IS NOT NULL AND revoked_at IS NULL`,
  ],
  12: [
    // The keys list's search is a prefix of the name, the start or the user: three index ranges
    // (`>= x AND < x || U+10FFFF`), each covering the status and the order, so a page of matches is chosen
    // from the indexes alone and only its rows are read. cloud_keys_by_user gains the status for the same.
    "CREATE INDEX cloud_keys_by_name ON cloud_keys (project_id, name, created_at, id, revoked_at)",
    "CREATE INDEX cloud_keys_by_start ON cloud_keys (project_id, start, created_at, id, revoked_at)",
    "DROP INDEX cloud_keys_by_user",
    "CREATE INDEX cloud_keys_by_user ON cloud_keys (project_id, user_id, created_at, id, revoked_at)",
    // The keys by state of a project (the overview, the keys list's total) without counting a million
    // rows: one small row per project, kept exact by triggers, as cloud_violation_counts.
    `CREATE TABLE cloud_key_counts (
        project_id TEXT PRIMARY KEY,
        active INTEGER NOT NULL,
        revoked INTEGER NOT NULL
      ) WITHOUT ROWID`,
    `INSERT INTO cloud_key_counts (project_id, active, revoked)
        SELECT project_id, SUM(revoked_at IS NULL), SUM(revoked_at IS NOT NULL) FROM cloud_keys GROUP BY project_id`,
    `CREATE TRIGGER cloud_keys_counted AFTER INSERT ON cloud_keys BEGIN
        INSERT INTO cloud_key_counts (project_id, active, revoked)
          VALUES (NEW.project_id, NEW.revoked_at IS NULL, NEW.revoked_at IS NOT NULL)
          ON CONFLICT (project_id) DO UPDATE SET active = active + excluded.active, revoked = revoked + excluded.revoked;
      END`,
    `CREATE TRIGGER cloud_keys_recounted AFTER UPDATE OF revoked_at ON cloud_keys
        WHEN (OLD.revoked_at IS NULL) <> (NEW.revoked_at IS NULL) BEGIN
        UPDATE cloud_key_counts SET active = active + (NEW.revoked_at IS NULL) - (OLD.revoked_at IS NULL),
          revoked = revoked + (NEW.revoked_at IS NOT NULL) - (OLD.revoked_at IS NOT NULL)
          WHERE project_id = NEW.project_id;
      END`,
    `CREATE TRIGGER cloud_keys_uncounted AFTER DELETE ON cloud_keys BEGIN
        UPDATE cloud_key_counts SET active = active - (OLD.revoked_at IS NULL),
          revoked = revoked - (OLD.revoked_at IS NOT NULL) WHERE project_id = OLD.project_id;
      END`,
  ],
  13: [
    // The latest revocation of every key of a user (`DELETE /v1/sdk/keys?userId=`, the dashboard's revoke-all):
    // a hybrid app's mirror that arrives later for a key of that user created at or before `revoked_at` (minted
    // while its outbox could not reach the cloud) is stored revoked, with this reason, and reaches the feed.
    `CREATE TABLE cloud_user_revocations (
        project_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        revoked_at TEXT NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (project_id, user_id)
      ) WITHOUT ROWID`,
  ],
  14: [
    // The grant (at a cloud-mode app) a key is the access token of; NULL: a key minted by hand.
    "ALTER TABLE cloud_keys ADD COLUMN grant_id TEXT",
    "CREATE INDEX cloud_keys_by_grant ON cloud_keys (project_id, grant_id) WHERE grant_id IS NOT NULL",
    // Grants ended here (a revoke of one of their keys): no key is minted for them again.
    `CREATE TABLE cloud_ended_grants (
        project_id TEXT NOT NULL,
        grant_id TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        PRIMARY KEY (project_id, grant_id)
      ) WITHOUT ROWID`,
  ],
  20: [
    // One row whose `seq` moves whenever what agent auth reads of a key may have changed (a key stored, deleted,
    // revoked, its revocation scheduled or its expiry set; not a `lastUsedAt` touch): what a node reads to learn
    // whether its cached keys still hold after another node committed (thousands of events a second do).
    `CREATE TABLE cloud_key_changes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL
      )`,
    "INSERT INTO cloud_key_changes (id, seq) VALUES (1, 0)",
    `CREATE TRIGGER cloud_keys_auth_inserted AFTER INSERT ON cloud_keys
      BEGIN UPDATE cloud_key_changes SET seq = seq + 1 WHERE id = 1; END`,
    `CREATE TRIGGER cloud_keys_auth_changed
      AFTER UPDATE OF id, project_id, agent_id, hash, seq, revoked_at, expires_at, revokes_at ON cloud_keys
      BEGIN UPDATE cloud_key_changes SET seq = seq + 1 WHERE id = 1; END`,
    `CREATE TRIGGER cloud_keys_auth_deleted AFTER DELETE ON cloud_keys
      BEGIN UPDATE cloud_key_changes SET seq = seq + 1 WHERE id = 1; END`,
  ],
};
