/**
 * The conformance report: each check with whether it passed, grouped by the
 * key routes and by intent, and an assertion that fails with every failure listed.
 *
 * @module
 */

/** One check. */
export interface ConformanceCheck {
  /** What was checked, such as `without a key → 401 UNAUTHORIZED`. */
  name: string;
  /** Whether the answer was the contract's. */
  passed: boolean;
  /** What came back instead, when it failed. */
  detail?: string;
}

/** The checks of one intent. */
export interface IntentReport {
  /** The intent name. */
  intent: string;
  /** Whether every check passed. */
  passed: boolean;
  /** The checks. */
  checks: ConformanceCheck[];
}

/** What {@linkcode checkSvcConformance} found. */
export interface ConformanceReport {
  /** Whether every check passed. */
  passed: boolean;
  /** The checks of the key routes and the manifest. */
  routes: ConformanceCheck[];
  /** The checks of each intent of the manifest. */
  intents: IntentReport[];
}

/**
 * Throws when any check failed, listing each failure.
 *
 * @param report What {@linkcode checkSvcConformance} returned.
 * @returns Nothing; it returns only when everything passed.
 * @throws {Error} Listing the failed checks.
 *
 * @example Fail an app's CI on any failure
 * ```ts
 * import { createSvc } from "@svc/agent-access";
 * import { assertConformance, checkSvcConformance } from "@svc/agent-access/testing";
 *
 * const { handle } = createSvc({
 *   userResolver: (req) => req.headers.get("cookie") === "session=ci" ? "ci" : null,
 *   scopes: ["notes:read"],
 * });
 * const report = await checkSvcConformance(handle, { scopes: ["notes:read"], signIn: { cookie: "session=ci" } });
 * assertConformance(report);
 * ```
 */
export function assertConformance(report: ConformanceReport): void {
  if (report.passed) return;
  throw new Error(`The /svc routes do not conform:\n${formatFailures(report)}`);
}

/**
 * Lists the failed checks, one a line.
 *
 * @param report The report.
 * @returns Lines such as `notes.create: without its scopes → 403 FORBIDDEN_SCOPE: got 200 …`.
 *
 * @example Print what failed
 * ```ts
 * import { formatFailures } from "@svc/agent-access/testing";
 * console.log(formatFailures({ passed: true, routes: [], intents: [] })); // ""
 * ```
 */
export function formatFailures(report: ConformanceReport): string {
  const line = (where: string, c: ConformanceCheck) => `- ${where}: ${c.name}${c.detail ? `: ${c.detail}` : ""}`;
  return [
    ...report.routes.filter((c) => !c.passed).map((c) => line("routes", c)),
    ...report.intents.flatMap((i) => i.checks.filter((c) => !c.passed).map((c) => line(i.intent, c))),
  ].join("\n");
}
