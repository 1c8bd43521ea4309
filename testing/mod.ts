/**
 * The conformance kit: an app runs {@linkcode checkSvcConformance} in its own
 * CI against its own `/svc` routes, and {@linkcode assertConformance} fails the
 * build when an answer departs from the contract (a missing scope check, a
 * payload that reaches its handler unchecked, a key that leaks).
 *
 * @example In an app's test suite
 * ```ts
 * import { createSvc } from "@svc/agent-access";
 * import { assertConformance, checkSvcConformance } from "@svc/agent-access/testing";
 *
 * const svc = createSvc({
 *   userResolver: (req) => req.headers.get("cookie") === "session=ci-user" ? "ci-user" : null,
 *   scopes: ["notes:read", "notes:write"],
 * });
 * const report = await checkSvcConformance(svc.handle, {
 *   scopes: ["notes:read", "notes:write"],
 *   signIn: { cookie: "session=ci-user" },
 * });
 * assertConformance(report);
 * ```
 *
 * @module
 */
export { checkSvcConformance } from "./conformance.ts";
export type { ConformanceOptions, Handle } from "./conformance.ts";
export { assertConformance, formatFailures } from "./report.ts";
export type { ConformanceCheck, ConformanceReport, IntentReport } from "./report.ts";
export { invalidPayloads } from "./invalid_payloads.ts";
export type { InvalidPayload } from "./invalid_payloads.ts";
