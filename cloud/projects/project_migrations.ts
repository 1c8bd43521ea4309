/**
 * The projects' tables (projects, manifests, settings): its steps of each of the cloud's migrations, by version.
 * `cloud/database` applies them in its one ordered list; never edit a step that has shipped: add one to a new
 * version.
 *
 * @module
 */

/** The projects' tables: the statements of each cloud migration that has some, by version. */
export const projectMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  1: [
    `CREATE TABLE cloud_projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        secret_rotated_at TEXT
      )`,
  ],
  2: [
    `CREATE TABLE cloud_manifests (
        project_id TEXT PRIMARY KEY REFERENCES cloud_projects (id),
        intents TEXT NOT NULL,
        scopes TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
  ],
  5: [
    // Per-project settings an operator changes (NULL: the server's default).
    `CREATE TABLE cloud_project_settings (
        project_id TEXT PRIMARY KEY REFERENCES cloud_projects (id),
        retention_ms INTEGER,
        updated_at TEXT NOT NULL
      )`,
  ],
  6: [
    // The project's auto-revoke policy as JSON, or NULL (off).
    "ALTER TABLE cloud_project_settings ADD COLUMN auto_revoke TEXT",
  ],
  11: [
    // The project's bounds of a key's lifetime as JSON ({ defaultDays, maxDays }), or NULL (none).
    "ALTER TABLE cloud_project_settings ADD COLUMN key_lifetime TEXT",
  ],
  20: [
    // One row whose `seq` moves whenever a project is created, deleted or its secret changes: what a node reads to
    // learn whether its cached secrets still hold after another node committed (thousands of events a second do).
    `CREATE TABLE cloud_project_changes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL
      )`,
    "INSERT INTO cloud_project_changes (id, seq) VALUES (1, 0)",
    `CREATE TRIGGER cloud_projects_created AFTER INSERT ON cloud_projects
      BEGIN UPDATE cloud_project_changes SET seq = seq + 1 WHERE id = 1; END`,
    `CREATE TRIGGER cloud_projects_secret_changed AFTER UPDATE OF id, secret_hash ON cloud_projects
      BEGIN UPDATE cloud_project_changes SET seq = seq + 1 WHERE id = 1; END`,
    `CREATE TRIGGER cloud_projects_deleted AFTER DELETE ON cloud_projects
      BEGIN UPDATE cloud_project_changes SET seq = seq + 1 WHERE id = 1; END`,
  ],
};
