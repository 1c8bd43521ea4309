/**
 * Violations, their chart and auto-revoke: what the feature's repository offers, with no SQL; all the SQL of its tables is behind it, on libSQL in
 * this folder.
 *
 * @module
 */
import type { Severity, Violation as ViolationRecord } from "../../core/contract/mod.ts";
import type { AutoRevoking } from "./auto_revoke_storage.ts";
import type { ViolationChart } from "./violation_chart.ts";

/** The severities of a violation, and a violation as stored and listed: the app side's. */
export type { Severity, ViolationRecord };

/** Filters and page of a violations query; `since` is inclusive. */
export interface ViolationQuery {
  /** Only this key's. */
  keyId?: string;
  /** Only this kind. */
  kind?: string;
  /** Only this severity. */
  severity?: Severity;
  /** Only at or after this ISO 8601 time (normalised to UTC with milliseconds). */
  since?: string;
  /** Page size. */
  limit: number;
  /** Rows to skip. */
  offset: number;
}

/** A page of violations and the count of all matches. */
export interface ViolationPage {
  /** Newest first, ties by id. */
  violations: ViolationRecord[];
  /** Count of every match. */
  total: number;
}

/** A report as it arrives: the violation to store and the app's id for the report, if it sent one. */
export interface ReportedViolation {
  /** The violation, with a fresh id. */
  violation: ViolationRecord;
  /** The app's `reportId` (`null`: none, never deduplicated). */
  reportId: string | null;
}

/** What became of a report: the id of the violation holding it and whether an earlier delivery did. */
export interface StoredReport {
  /** The stored violation's id (the first delivery's, for a duplicate). */
  id: string;
  /** `true` when the report id was known and nothing new was stored. */
  duplicate: boolean;
}

/** Violations, their chart and auto-revoke: the repository. */
export interface ViolationRepository extends ViolationChart, AutoRevoking {
  /** Stores a violation. */
  addViolation(projectId: string, violation: ViolationRecord): Promise<void>;
  /** Stores violations in one transaction. */
  addViolations(projectId: string, violations: readonly ViolationRecord[]): Promise<void>;
  /**
   * Stores reports in one transaction, each `reportId` once per project (a repeat, also within the
   * reports, stores nothing); one outcome per report, in order.
   */
  addReports(projectId: string, reports: readonly ReportedViolation[]): Promise<StoredReport[]>;
  /** Deletes violations recorded before `before`, in every project; the count deleted. */
  purgeViolations(before: string): Promise<number>;
  /** A page of the project's violations. */
  listViolations(projectId: string, query: ViolationQuery): Promise<ViolationPage>;
}
