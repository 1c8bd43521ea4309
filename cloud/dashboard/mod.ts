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
  type DashboardSeams,
  type DashboardSettings,
} from "./create_dashboard.ts";
export { publicOrigin } from "./public_url.ts";
export type { DashboardServices } from "./dashboard_deps.ts";
