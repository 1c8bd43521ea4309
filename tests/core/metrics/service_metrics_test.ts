// ServiceMetrics counts requests and their durations without prom-client's per-observation cost (issue 41); the
// exposition stays prom-client's own: these tests build the same series with prom-client's Counter and Histogram and
// compare the text, line for line, across scrapes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Counter, Histogram, Registry } from "prom-client";
import { ServiceMetrics } from "../../../core/metrics/mod.ts";

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25];

/** The requests metrics as prom-client itself builds them. */
function promClientRequests(prefix: string) {
  const registry = new Registry();
  const requests = new Counter({
    name: `${prefix}_http_requests_total`,
    help: "Requests answered, by method, route pattern and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const durations = new Histogram({
    name: `${prefix}_http_request_duration_seconds`,
    help: "Time to answer a request (to its status and headers), by method and route pattern",
    labelNames: ["method", "route"],
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    observe(route: { method: string; path: string } | null, status: number, seconds: number) {
      const method = route?.method ?? "ANY";
      const path = route?.path ?? "(unmatched)";
      requests.labels(method, path, String(status)).inc();
      durations.labels(method, path).observe(seconds);
    },
  };
}

const RUN = { method: "POST", path: "/svc/agent/run" };
const KEYS = { method: "GET", path: "/svc/keys" };
// On the bounds, between them, past the last one, and sums whose float rounding depends on their order.
const SECONDS = [0.0005, 0.0004, 0.1, 0.1 + 1e-12, 0.3, 25, 26, 1e-9, 0.7, 0.0123, 2.5, 0.2, 0.1];

test("the requests and their durations read as prom-client's Counter and Histogram, across scrapes", async () => {
  const metrics = new ServiceMetrics("svc_app");
  const reference = promClientRequests("svc_app");
  const both = (route: typeof RUN | null, status: number, seconds: number) => {
    metrics.observeRequest(route, status, seconds);
    reference.observe(route, status, seconds);
  };
  SECONDS.forEach((s, i) => both(i % 3 === 0 ? KEYS : RUN, i % 4 === 0 ? 401 : 200, s));
  both(null, 404, 0.0002);
  assert.equal(await metrics.text(), await reference.registry.metrics());
  // Counted again after a scrape: the counter goes on from what the last scrape showed.
  SECONDS.forEach((s) => both(RUN, 200, s * 3));
  both(RUN, 429, 0.002);
  const text = await metrics.text();
  assert.equal(text, await reference.registry.metrics());
  assert.match(text, /svc_app_http_requests_total\{method="POST",route="\/svc\/agent\/run",status="200"\} 1[0-9]\n/);
  assert.equal(await metrics.text(), text, "a scrape with nothing new reads the same");
});

test("the durations of a route answer the registry's JSON as prom-client's Histogram does", async () => {
  const metrics = new ServiceMetrics("svc_cloud");
  const reference = promClientRequests("svc_cloud");
  for (const s of SECONDS) {
    metrics.observeRequest(RUN, 202, s);
    reference.observe(RUN, 202, s);
  }
  assert.deepEqual(await metrics.registry.getMetricsAsJSON(), await reference.registry.getMetricsAsJSON());
});

test("a duration that is not a number is refused, as prom-client refuses it, and counts nothing", async () => {
  const metrics = new ServiceMetrics("svc_app");
  assert.throws(() => metrics.observeRequest(RUN, 200, Number.NaN), TypeError);
  assert.doesNotMatch(await metrics.text(), /route=/);
});

test("after the registry's resetMetrics() the requests read as prom-client's do", async () => {
  const metrics = new ServiceMetrics("svc_app");
  const reference = promClientRequests("svc_app");
  const both = (route: typeof RUN, status: number, seconds: number) => {
    metrics.observeRequest(route, status, seconds);
    reference.observe(route, status, seconds);
  };
  both(RUN, 200, 0.001);
  both(KEYS, 200, 0.002);
  assert.equal(await metrics.text(), await reference.registry.metrics());
  both(RUN, 200, 0.003); // counted, not yet read, then forgotten
  metrics.registry.resetMetrics();
  reference.registry.resetMetrics();
  assert.equal(await metrics.text(), await reference.registry.metrics());
  both(KEYS, 401, 0.004); // the series come back in the order they are seen again
  both(RUN, 200, 0.005);
  assert.equal(await metrics.text(), await reference.registry.metrics());
});
