/**
 * Operations: the health check, the metrics and who may read them.
 *
 * @module
 */
export { type CloudMetrics, cloudMetrics } from "./cloud_metrics.ts";
export { authenticateMetrics, isLoopbackAddress } from "./metrics_auth.ts";
export { cloudHealthSchema, type OperationsDeps, operationsRoutes, type StorageHealth } from "./operations_routes.ts";
