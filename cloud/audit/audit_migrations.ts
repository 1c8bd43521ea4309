/**
 * The audit log's table (append-only by its triggers): its steps of each of the cloud's migrations, by version.
 * `cloud/database` applies them in its one ordered list; never edit a step that has shipped: add one to a new
 * version.
 *
 * @module
 */

/** The audit log's table: the statements of each cloud migration that has some, by version. */
export const auditMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  5: [
    // Who changed what, from where, when: append-only (triggers refuse updates and deletes),
    // never holding a secret, kept when its project is deleted.
    `CREATE TABLE cloud_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        detail TEXT NOT NULL DEFAULT '{}',
        source_address TEXT,
        created_at TEXT NOT NULL
      )`,
    "CREATE INDEX cloud_audit_by_time ON cloud_audit (created_at DESC, id DESC)",
    "CREATE INDEX cloud_audit_by_project ON cloud_audit (project_id, created_at DESC, id DESC)",
    "CREATE INDEX cloud_audit_by_action ON cloud_audit (action, created_at DESC, id DESC)",
    `CREATE TRIGGER cloud_audit_no_update BEFORE UPDATE ON cloud_audit BEGIN
        SELECT RAISE(ABORT, 'cloud_audit is append-only');
      END`,
    `CREATE TRIGGER cloud_audit_no_delete BEFORE DELETE ON cloud_audit BEGIN
        SELECT RAISE(ABORT, 'cloud_audit is append-only');
      END`,
  ],
  10: [
    // The audit log of one key (or any target), newest first: the dashboard's filter by key.
    "CREATE INDEX cloud_audit_by_target ON cloud_audit (target, created_at DESC, id DESC)",
  ],
  15: [
    // When the cloud received an entry; `created_at` is when the action happened (an app's time, for what
    // its outbox delivers late). NULL on entries written before: they were received when they were made.
    "ALTER TABLE cloud_audit ADD COLUMN received_at TEXT",
  ],
};
