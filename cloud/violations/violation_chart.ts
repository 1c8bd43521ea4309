/**
 * Violations counted by hour or day, for the dashboard's chart.
 *
 * @module
 */
import type { Severity } from "../../core/contract/mod.ts";

/** The width of a chart bucket. */
export type BucketUnit = "hour" | "day";

/** Violations of one severity in one bucket. */
export interface ViolationBucket {
  /** The bucket's start: `YYYY-MM-DDTHH` for hours, `YYYY-MM-DD` for days (UTC). */
  bucket: string;
  /** The severity. */
  severity: Severity;
  /** How many. */
  count: number;
}

/** The chart's read. */
export interface ViolationChart {
  /** Violations at or after `since`, counted by bucket and severity, oldest bucket first. */
  violationBuckets(projectId: string, since: string, unit: BucketUnit): Promise<ViolationBucket[]>;
}
