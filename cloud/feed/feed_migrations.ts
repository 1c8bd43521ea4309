/**
 * The revocation feed's table and the triggers that write its rows in the transaction of the key change (a key
 * revoked by an update, or stored already revoked): its steps of each of the cloud's migrations, by version.
 * `cloud/database` applies them in its one ordered list; never edit a step that has shipped: add one to a new
 * version.
 *
 * @module
 */

/** The feed row of a key revoked by an update (migration 6; re-created by 7 with its table, and by 11 with the feed's). */
const KEY_REVOKED_TRIGGER = `CREATE TRIGGER cloud_keys_revoked AFTER UPDATE OF revoked_at ON cloud_keys
        WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL BEGIN
        INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason) VALUES (NEW.project_id,
          COALESCE((SELECT MAX(seq) FROM cloud_revocations WHERE project_id = NEW.project_id), 0) + 1,
          NEW.id, NEW.revoked_at, COALESCE(NEW.revoke_reason, 'app'));
      END`;

/** The feed row of a key stored already revoked (migration 6; re-created by 7 and by 11, as the one above). */
const KEY_INSERTED_REVOKED_TRIGGER = `CREATE TRIGGER cloud_keys_inserted_revoked AFTER INSERT ON cloud_keys
        WHEN NEW.revoked_at IS NOT NULL BEGIN
        INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason) VALUES (NEW.project_id,
          COALESCE((SELECT MAX(seq) FROM cloud_revocations WHERE project_id = NEW.project_id), 0) + 1,
          NEW.id, NEW.revoked_at, COALESCE(NEW.revoke_reason, 'app'));
      END`;

/**
 * The revocation feed's table and the triggers that write its rows in the transaction of the key change: the
 * statements of each cloud migration that has some, by version.
 */
export const feedMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  6: [
    // Every revocation the cloud learns of, numbered per project: the feed apps follow.
    `CREATE TABLE cloud_revocations (
        project_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        revoked_at TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('app', 'tooling', 'dashboard', 'auto')),
        PRIMARY KEY (project_id, seq)
      ) WITHOUT ROWID`,
    // Keys revoked before the feed existed, in the order they were revoked (their reason is unknown).
    `INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason)
        SELECT project_id, ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY revoked_at, id), id, revoked_at,
          'tooling'
        FROM cloud_keys WHERE revoked_at IS NOT NULL`,
    // The feed row is written by the statement that revokes, in its transaction, whoever revokes
    // (tooling, the dashboard, auto-revoke, a mirror); a key already revoked adds no second row.
    KEY_REVOKED_TRIGGER,
    KEY_INSERTED_REVOKED_TRIGGER,
  ],
  7: [
    KEY_REVOKED_TRIGGER,
    KEY_INSERTED_REVOKED_TRIGGER,
  ],
  11: [
    // The feed's reasons gain `reroll` (a grace ended) and `oauth` (a grant ended): SQLite cannot change a
    // CHECK, so the feed is copied as it is into a table with the new one, and the triggers that write it
    // are made again once it has its name back.
    `CREATE TABLE cloud_revocations_v10 (
        project_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        revoked_at TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('app', 'tooling', 'dashboard', 'auto', 'reroll', 'oauth')),
        PRIMARY KEY (project_id, seq)
      ) WITHOUT ROWID`,
    `INSERT INTO cloud_revocations_v10 (project_id, seq, key_id, revoked_at, reason)
        SELECT project_id, seq, key_id, revoked_at, reason FROM cloud_revocations`,
    "DROP TRIGGER cloud_keys_revoked",
    "DROP TRIGGER cloud_keys_inserted_revoked",
    "DROP TABLE cloud_revocations",
    "ALTER TABLE cloud_revocations_v10 RENAME TO cloud_revocations",
    KEY_REVOKED_TRIGGER,
    KEY_INSERTED_REVOKED_TRIGGER,
  ],
};
