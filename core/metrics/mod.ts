/**
 * Metrics for both sides: requests by route and status, counters, timers and gauges read at scrape time, in the
 * Prometheus text exposition.
 *
 * @module
 */
export { ServiceMetrics } from "./service_metrics.ts";
export type { GaugeReading } from "./service_metrics.ts";
