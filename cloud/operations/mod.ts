/**
 * Operations: the health check, the metrics and who may read them.
 *
 * @module
 */
export { cloudMetrics } from "./cloud_metrics.ts";
export { authenticateMetrics } from "./metrics_auth.ts";
export { operationsRoutes } from "./operations_routes.ts";
export type { OperationsDeps } from "./operations_routes.ts";
