// svc.metrics(): the app's own exposition (parsed by a Prometheus text parser): its requests by route and status, and
// in hybrid mode the outbox's items, the revocation feed's lag and the cloud link's state.
import { test } from "node:test";
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string }[] };

async function scrape(metrics: () => Promise<string>): Promise<Map<string, Family>> {
  return new Map((parsePrometheusTextFormat(await metrics()) as Family[]).map((f) => [f.name, f]));
}

function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found?.value === undefined ? undefined : Number(found.value);
}

test("a local app counts its requests by route and status, and has no cloud gauges", async () => {
  const svc = notesSvc();
  try {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    await (await run(svc, key, "notes.create", { title: "a" })).body?.cancel();
    await (await run(svc, key, "notes.list")).body?.cancel();
    await (await run(svc, "svc_live_" + "x".repeat(40), "notes.list")).body?.cancel();
    const families = await scrape(svc.metrics);
    const requests = "svc_app_http_requests_total";
    assert.equal(valueOf(families, requests, { method: "POST", route: "/svc/keys", status: "201" }), 1);
    assert.equal(valueOf(families, requests, { method: "POST", route: "/svc/agent/run", status: "200" }), 1);
    assert.equal(valueOf(families, requests, { method: "POST", route: "/svc/agent/run", status: "403" }), 1);
    assert.equal(valueOf(families, requests, { method: "POST", route: "/svc/agent/run", status: "401" }), 1);
    assert.equal(families.has("svc_app_outbox_items"), false);
    assert.equal(families.has("svc_app_cloud_link"), false);
  } finally {
    await svc.close();
  }
});

test("a hybrid app reports its outbox, its feed's lag and its link to the cloud", async () => {
  const dir = tempDir("svc-app-metrics-");
  const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
  const svc = notesSvc({ mode: "hybrid", storage: `file:${dir.file("app.db")}`, cloud: cloud.appConfig() });
  try {
    await svc.ready;
    await waitFor("the feed to be followed", async () => (await svc.health()).cloud === "following");
    const families = await scrape(svc.metrics);
    assert.equal(valueOf(families, "svc_app_cloud_link", { state: "following" }), 1);
    assert.equal(valueOf(families, "svc_app_cloud_link", { state: "stale" }), 0);
    assert.equal(valueOf(families, "svc_app_outbox_items", { state: "waiting" }), 0);
    assert.equal(valueOf(families, "svc_app_outbox_items", { state: "set_aside" }), 0);
    assert.ok(valueOf(families, "svc_app_revocation_feed_lag_seconds")! >= 0);

    await cloud.stop(); // what is minted now waits in the outbox
    await mint(svc, "alice", ["notes:read"]);
    const waiting = await scrape(svc.metrics);
    assert.ok(valueOf(waiting, "svc_app_outbox_items", { state: "waiting" })! >= 1);
  } finally {
    await svc.close();
    await cloud.stop();
    dir.remove();
  }
});

test("a hybrid app reports its outbox depth to the cloud on its feed polls (the cloud's connected apps keep it)", async () => {
  const dir = tempDir("svc-app-outbox-depth-");
  const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
  const config = cloud.appConfig();
  const svc = notesSvc({ mode: "hybrid", storage: `file:${dir.file("app.db")}`, cloud: config });
  try {
    await svc.ready;
    const depths = async (): Promise<(number | null)[]> => {
      const res = await fetch(`${config.endpoint}/v1/sdk/apps`, {
        headers: { authorization: `Bearer ${config.sdkSecret}`, "x-svc-project": config.projectId },
      });
      return (await res.json()).apps.map((app: { outboxDepth: number | null }) => app.outboxDepth);
    };
    await waitFor("the app to be seen with its outbox depth", async () => (await depths()).length === 1);
    assert.deepEqual(await depths(), [0]);
  } finally {
    await svc.close();
    await cloud.stop();
    dir.remove();
  }
});
