/**
 * The activity record's tables (what agents did: one row per agent run an app shipped, and its runs and refusals per
 * key and hour kept by triggers): its steps of each of the cloud's migrations, by version. `cloud/database` applies
 * them in its one ordered list; never edit a step that has shipped: add one to a new version.
 *
 * @module
 */

/** The activity tables: the statements of each cloud migration that has some, by version. */
export const activityMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  18: [
    // A rowid table (purged in chunks by rowid); an id is stored once per project, so a retried batch adds nothing.
    `CREATE TABLE cloud_activity (
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        id TEXT NOT NULL,
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
    "CREATE UNIQUE INDEX cloud_activity_ids ON cloud_activity (project_id, id)",
    // One index per filter, each ending in the order of a page (newest first, ties by id), so every filter seeks
    // by its equality and reads a page without sorting: a page costs the same at a million rows as at ten.
    "CREATE INDEX cloud_activity_by_time ON cloud_activity (project_id, at DESC, id DESC)",
    "CREATE INDEX cloud_activity_by_key ON cloud_activity (project_id, key_id, at DESC, id DESC)",
    "CREATE INDEX cloud_activity_by_user ON cloud_activity (project_id, user_id, at DESC, id DESC)",
    "CREATE INDEX cloud_activity_by_intent ON cloud_activity (project_id, intent, at DESC, id DESC)",
    "CREATE INDEX cloud_activity_by_outcome ON cloud_activity (project_id, outcome, at DESC, id DESC)",
    // Runs and refusals per key and hour, kept exact by triggers: a key's 7-day chart reads at most 168 small rows.
    `CREATE TABLE cloud_activity_hours (
        project_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        hour TEXT NOT NULL,
        runs INTEGER NOT NULL,
        refusals INTEGER NOT NULL,
        PRIMARY KEY (project_id, key_id, hour)
      ) WITHOUT ROWID`,
    `CREATE TRIGGER cloud_activity_hour_counted AFTER INSERT ON cloud_activity BEGIN
        INSERT INTO cloud_activity_hours (project_id, key_id, hour, runs, refusals)
          VALUES (NEW.project_id, NEW.key_id, substr(NEW.at, 1, 13), 1, NEW.outcome = 'refused')
          ON CONFLICT (project_id, key_id, hour) DO UPDATE SET runs = runs + 1, refusals = refusals + excluded.refusals;
      END`,
    `CREATE TRIGGER cloud_activity_hour_uncounted AFTER DELETE ON cloud_activity BEGIN
        UPDATE cloud_activity_hours SET runs = runs - 1, refusals = refusals - (OLD.outcome = 'refused')
          WHERE project_id = OLD.project_id AND key_id = OLD.key_id AND hour = substr(OLD.at, 1, 13);
      END`,
  ],
};
