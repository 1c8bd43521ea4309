/**
 * Approvals: agent runs that wait for their user's decision, kept in the app with their payload, and the page
 * where the user decides.
 *
 * @module
 */
export { decidedPage, decisionPage, decisionTokens } from "./approval_page.ts";
export type { DecisionTokens } from "./approval_page.ts";
export { createApprovals } from "./approval_service.ts";
export type { Approval, Approvals } from "./approval_service.ts";
