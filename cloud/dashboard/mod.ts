/**
 * The dashboard: operators' web pages under `/dashboard`, served by the cloud.
 *
 * @module
 */
export { createDashboard, DASHBOARD_PREFIX } from "./create_dashboard.ts";
export type { DashboardSeams, DashboardSettings } from "./create_dashboard.ts";
export type { DashboardServices } from "./dashboard_deps.ts";
export { publicOrigin } from "./public_url.ts";
