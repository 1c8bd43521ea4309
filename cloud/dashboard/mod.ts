/**
 * The dashboard: operators' web pages under `/dashboard`, served by the cloud.
 *
 * @module
 */
export {
  createDashboard,
  type Dashboard,
  DASHBOARD_PREFIX,
  type DashboardOptions,
  type DashboardSettings,
} from "./create_dashboard.ts";
export { createSetupLink, SETUP_LINK_TTL_MS } from "./setup_link.ts";
export { newOperator, operatorInputProblem } from "./operators.ts";
export { hashPassword, verifyPassword } from "./passwords.ts";
export type { SignInLimits } from "./sign_in_limiter.ts";
