/**
 * Violations by hour or day for the dashboard's chart, on libSQL.
 *
 * @module
 */
import type { Executor, SqlRow } from "../../core/db/mod.ts";
import type { Severity } from "../../core/contract/mod.ts";
import { integer, text } from "../../core/db/mod.ts";
import type { ViolationChart } from "./violation_chart.ts";

/**
 * The chart's query on an executor.
 *
 * @param db The database.
 * @returns The chart read.
 */
export function violationChart(db: Executor): ViolationChart {
  return {
    async violationBuckets(projectId, since, unit) {
      // Hours are stored as `YYYY-MM-DDTHH`; a day is its first 10 characters.
      const width = unit === "hour" ? 13 : 10;
      const rs = await db.execute({
        sql: `SELECT substr(hour, 1, ${width}) AS bucket, severity, SUM(n) AS count FROM cloud_violation_hours
              WHERE project_id = ? AND hour >= ? AND n > 0
              GROUP BY bucket, severity ORDER BY bucket, severity`,
        args: [projectId, since.slice(0, width)],
      });
      return rs.rows.map((row: SqlRow) => ({
        bucket: text(row, "bucket"),
        severity: text(row, "severity") as Severity,
        count: integer(row, "count"),
      }));
    },
  };
}
