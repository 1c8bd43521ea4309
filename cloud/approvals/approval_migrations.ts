/**
 * The approvals' tables (each approval's latest step as the app reported it, and every step stored once): their
 * steps of each of the cloud's migrations, by version. `cloud/database` applies them in its one ordered list; never
 * edit a step that has shipped: add one to a new version.
 *
 * @module
 */

/** The approvals' tables: the statements of each cloud migration that has some, by version. */
export const approvalMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  17: [
    // Each approval as the app last reported it (never its payload or result): a final status is never
    // overwritten, by a late `pending` or by another final one.
    `CREATE TABLE cloud_approvals (
        project_id TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        intent TEXT NOT NULL,
        key_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        agent_id TEXT,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decided_at TEXT,
        reason TEXT,
        PRIMARY KEY (project_id, approval_id)
      )`, // a rowid table: purged in chunks by rowid
    "CREATE INDEX cloud_approvals_by_expiry ON cloud_approvals (expires_at)",
    "CREATE INDEX cloud_approvals_pending ON cloud_approvals (project_id, status, approval_id DESC)",
    "CREATE INDEX cloud_approvals_by_key ON cloud_approvals (project_id, key_id, approval_id DESC)",
    "CREATE INDEX cloud_approvals_by_user ON cloud_approvals (project_id, user_id, approval_id DESC)",
    // Every (approval, status) the app reported, once: a repeat after a lost answer finds its row here and stores
    // and audits nothing. `nonce` names the delivery that stored it, so its audit entry is written only by it.
    `CREATE TABLE cloud_approval_steps (
        project_id TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        status TEXT NOT NULL,
        nonce TEXT NOT NULL,
        received_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        PRIMARY KEY (project_id, approval_id, status)
      )`, // a rowid table: purged in chunks by rowid, with its approval
    "CREATE INDEX cloud_approval_steps_by_expiry ON cloud_approval_steps (expires_at)",
  ],
};
