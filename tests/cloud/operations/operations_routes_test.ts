// GET /v1/health answers without credentials, 503 when the database does not answer; GET /v1/metrics serves the
// Prometheus text exposition (parsed here by a Prometheus text parser, not a regex) to the metrics token, or without
// one to callers on this machine only, with requests by route and status and the gauges read from the database.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createCloud } from "../../../cloud/mod.ts";
import { PACKAGE_VERSION } from "../../../core/contract/mod.ts";
import { withClientAddress } from "../../../core/http/mod.ts";
import { event, startTestCloud, TEST_METRICS_TOKEN } from "../../fixtures/test_cloud.ts";

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[];
}

function parse(text: string): Map<string, Family> {
  return new Map((parsePrometheusTextFormat(text) as Family[]).map((family) => [family.name, family]));
}

function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string>): number | undefined {
  const found = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found?.value === undefined ? undefined : Number(found.value);
}

describe("GET /v1/health", () => {
  test("answers 200 with the version and the storage's state, to anyone", async () => {
    const t = await startTestCloud();
    try {
      const res = await t.raw("GET", "/v1/health");
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { ok: true, version: PACKAGE_VERSION, storage: "ok" });
      assert.equal(res.headers.get("cache-control"), "no-store");
    } finally {
      await t.close();
    }
  });

  test("answers 503 with storage unreachable when the database does not answer", async () => {
    const t = await startTestCloud();
    try {
      t.client.close();
      const res = await t.raw("GET", "/v1/health");
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { ok: false, version: PACKAGE_VERSION, storage: "unreachable" });
    } finally {
      await t.close().catch(() => {});
    }
  });
});

describe("GET /v1/metrics", () => {
  test("serves the exposition to the metrics token: requests, inbox depth, revocations, feed followers, database", async () => {
    const t = await startTestCloud();
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await t.sdk("POST", "/v1/events", { body: event(`e${i}`, "ann") })).status, 202);
      }
      const key = await t.mintKey("bob");
      assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${key.id}`)).status, 200);
      const feed = await t.sdk("GET", "/v1/sdk/keys/revocations?after=0", {
        headers: {
          "x-svc-instance": "01JD5Z7Q8R9S0T1V2W3X4Y5Z6A",
          "x-svc-app-label": "shop web",
          "x-svc-mode": "hybrid",
          "x-svc-outbox-depth": "5",
        },
      });
      assert.equal(feed.status, 200);
      await t.raw("GET", "/v1/nowhere");

      const res = await t.raw("GET", "/v1/metrics", { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      const families = parse(res.body as string);
      const requests = "svc_cloud_http_requests_total";
      assert.equal(valueOf(families, requests, { method: "POST", route: "/v1/events", status: "202" }), 3);
      assert.equal(valueOf(families, requests, { method: "DELETE", route: "/v1/sdk/keys/:id", status: "200" }), 1);
      assert.equal(valueOf(families, requests, { route: "(unmatched)", status: "404" }), 1);
      assert.equal(families.get("svc_cloud_http_request_duration_seconds")?.type, "HISTOGRAM");
      assert.equal(valueOf(families, "svc_cloud_inbox_waiting_items", { project: t.project.id }), 3);
      assert.ok(valueOf(families, "svc_cloud_inbox_oldest_waiting_seconds", { project: t.project.id })! >= 0);
      assert.equal(valueOf(families, "svc_cloud_revocations", { project: t.project.id, reason: "tooling" }), 1);
      assert.equal(valueOf(families, "svc_cloud_feed_followers", { project: t.project.id }), 1);
      const app = { project: t.project.id, instance: "01JD5Z7Q8R9S0T1V2W3X4Y5Z6A", app: "shop web" };
      // The app has read the revocation, but says so only on its next poll (after=1).
      assert.equal(valueOf(families, "svc_cloud_feed_app_behind_revocations", app), 1);
      assert.equal(families.get("svc_cloud_app_outbox_items")?.type, "GAUGE");
      assert.equal(valueOf(families, "svc_cloud_app_outbox_items", app), 5, "the outbox depth the app reported");
      const database = families.get("svc_cloud_db_call_duration_seconds");
      assert.ok(database?.metrics.some((m) => Number(m.buckets?.["+Inf"]) > 0), "database calls timed");
      const caughtUp = await t.sdk("GET", "/v1/sdk/keys/revocations?after=1", {
        headers: { "x-svc-instance": app.instance, "x-svc-app-label": "shop web", "x-svc-mode": "hybrid" },
      });
      assert.equal(caughtUp.status, 200);
      const again = await t.raw("GET", "/v1/metrics", { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
      assert.equal(valueOf(parse(again.body as string), "svc_cloud_feed_app_behind_revocations", app), 0);
      assert.equal(
        valueOf(parse(again.body as string), "svc_cloud_app_outbox_items", app),
        undefined,
        "an app that no longer says its depth has none",
      );
    } finally {
      await t.close();
    }
  });

  test("refuses a missing or wrong token with 401, and never counts a secret", async () => {
    const t = await startTestCloud();
    try {
      const refused: Record<string, string>[] = [
        {},
        { authorization: "Bearer wrong-token-0123456789" },
        { authorization: TEST_METRICS_TOKEN },
      ];
      for (const headers of refused) {
        const res = await t.raw("GET", "/v1/metrics", { headers });
        assert.equal(res.status, 401);
        assert.equal((res.body as { error: { code: string } }).error.code, "UNAUTHORIZED");
      }
      const text = (await t.raw("GET", "/v1/metrics", { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } }))
        .body as string;
      assert.equal(text.includes(t.project.secret), false);
      assert.equal(text.includes(TEST_METRICS_TOKEN), false);
    } finally {
      await t.close();
    }
  });

  test("without a token, serves callers on this machine only", async () => {
    const cloud = createCloud({ db: ":memory:", logger: () => {}, dashboard: false });
    after(() => cloud.close());
    await cloud.ready;
    const from = (address: string | null) =>
      cloud.handle(withClientAddress(new Request("http://cloud.test/v1/metrics"), address));
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      const res = await from(address);
      assert.equal(res.status, 200, address);
      await res.body?.cancel();
    }
    for (const address of ["10.0.0.1", "192.168.1.2", "2001:db8::1", "::ffff:10.0.0.1", null]) {
      const res = await from(address);
      assert.equal(res.status, 401, String(address));
      assert.match((await res.json()).error.message, /--metrics-token/);
    }
  });
});
