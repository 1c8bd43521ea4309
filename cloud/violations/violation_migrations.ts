/**
 * The violations' tables (violations, their totals and hours kept by triggers, report ids): its steps of each of the
 * cloud's migrations, by version. `cloud/database` applies them in its one ordered list; never edit a step that has
 * shipped: add one to a new version.
 *
 * @module
 */

/** The violations' tables: the statements of each cloud migration that has some, by version. */
export const violationMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  2: [
    `CREATE TABLE cloud_violations (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        key_id TEXT NOT NULL,
        user_id TEXT,
        intent TEXT,
        kind TEXT NOT NULL,
        severity TEXT NOT NULL,
        message TEXT,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
    // One index per filter, each ending in the sort order, so every combination
    // seeks by its most selective equality and reads newest first without sorting.
    "CREATE INDEX cloud_violations_by_time ON cloud_violations (project_id, created_at DESC, id DESC)",
    "CREATE INDEX cloud_violations_by_key ON cloud_violations (project_id, key_id, created_at DESC, id DESC)",
    "CREATE INDEX cloud_violations_by_kind ON cloud_violations (project_id, kind, created_at DESC, id DESC)",
    "CREATE INDEX cloud_violations_by_severity ON cloud_violations (project_id, severity, created_at DESC, id DESC)",
  ],
  4: [
    // The total of an unfiltered (or kind/severity-filtered) violations page, without counting
    // millions of rows: one small row per project, kind and severity, kept exact by triggers.
    `CREATE TABLE cloud_violation_counts (
        project_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        severity TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (project_id, kind, severity)
      ) WITHOUT ROWID`,
    `INSERT INTO cloud_violation_counts (project_id, kind, severity, n)
        SELECT project_id, kind, severity, COUNT(*) FROM cloud_violations GROUP BY project_id, kind, severity`,
    `CREATE TRIGGER cloud_violations_counted AFTER INSERT ON cloud_violations BEGIN
        INSERT INTO cloud_violation_counts (project_id, kind, severity, n)
          VALUES (NEW.project_id, NEW.kind, NEW.severity, 1)
          ON CONFLICT (project_id, kind, severity) DO UPDATE SET n = n + 1;
      END`,
    `CREATE TRIGGER cloud_violations_uncounted AFTER DELETE ON cloud_violations BEGIN
        UPDATE cloud_violation_counts SET n = n - 1
          WHERE project_id = OLD.project_id AND kind = OLD.kind AND severity = OLD.severity;
      END`,
  ],
  5: [
    // Violations per project, hour and severity, kept exact by triggers like the totals, so a
    // 24-hour or 30-day chart reads at most 720 small rows per severity at any table size.
    `CREATE TABLE cloud_violation_hours (
        project_id TEXT NOT NULL,
        hour TEXT NOT NULL,
        severity TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (project_id, hour, severity)
      ) WITHOUT ROWID`,
    `INSERT INTO cloud_violation_hours (project_id, hour, severity, n)
        SELECT project_id, substr(created_at, 1, 13), severity, COUNT(*) FROM cloud_violations
        GROUP BY project_id, substr(created_at, 1, 13), severity`,
    `CREATE TRIGGER cloud_violations_hour_counted AFTER INSERT ON cloud_violations BEGIN
        INSERT INTO cloud_violation_hours (project_id, hour, severity, n)
          VALUES (NEW.project_id, substr(NEW.created_at, 1, 13), NEW.severity, 1)
          ON CONFLICT (project_id, hour, severity) DO UPDATE SET n = n + 1;
      END`,
    `CREATE TRIGGER cloud_violations_hour_uncounted AFTER DELETE ON cloud_violations BEGIN
        UPDATE cloud_violation_hours SET n = n - 1
          WHERE project_id = OLD.project_id AND hour = substr(OLD.created_at, 1, 13) AND severity = OLD.severity;
      END`,
  ],
  15: [
    // The id an app mints for each report (`reportId`): a retry after a lost answer finds its first
    // delivery here and stores nothing new. Purged with the violation it names.
    `CREATE TABLE cloud_violation_reports (
        project_id TEXT NOT NULL,
        report_id TEXT NOT NULL,
        violation_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (project_id, report_id)
      )`, // a rowid table: purged in chunks by rowid
    "CREATE INDEX cloud_violation_reports_by_time ON cloud_violation_reports (created_at)",
  ],
};
