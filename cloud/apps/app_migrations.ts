/**
 * The connected apps' table: its steps of each of the cloud's migrations, by version. `cloud/database` applies them
 * in its one ordered list; never edit a step that has shipped: add one to a new version.
 *
 * @module
 */

/** The connected apps' table: the statements of each cloud migration that has some, by version. */
export const appMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  9: [
    // Each app instance that follows a project's revocation feed, as it identified itself on its latest
    // recorded poll (written only after SDK auth passed); dropped 7 days after it was last seen.
    `CREATE TABLE cloud_apps (
        project_id TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        label TEXT NOT NULL,
        mode TEXT CHECK (mode IN ('hybrid', 'cloud')),
        sdk_version TEXT,
        first_seen_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        cursor INTEGER NOT NULL,
        PRIMARY KEY (project_id, instance_id)
      ) WITHOUT ROWID`,
    "CREATE INDEX cloud_apps_by_last_seen ON cloud_apps (last_seen_at)",
  ],
  16: [
    // NULL for an app that does not say (older SDKs): `x-svc-outbox-depth` on its polls.
    "ALTER TABLE cloud_apps ADD COLUMN outbox_depth INTEGER",
  ],
};
