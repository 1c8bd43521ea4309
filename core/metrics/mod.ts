/**
 * Metrics for both sides: requests by route and status, counters, timers and gauges read at scrape time, in the
 * Prometheus text exposition.
 *
 * @module
 */
export { type GaugeReading, type RouteLabel, ServiceMetrics } from "./service_metrics.ts";
