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
export { createSetupLink, SETUP_LINK_TTL_MS } from "../operators/mod.ts";
export { newOperator, operatorInputProblem } from "../operators/mod.ts";
export { hashPassword, verifyPassword } from "../operators/mod.ts";
export type { SignInLimits } from "../operators/mod.ts";
