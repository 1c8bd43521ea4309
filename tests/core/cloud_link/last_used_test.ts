// Mirroring lastUsedAt (hybrid mode) over a real socket to a small HTTP server that answers
// `POST /v1/sdk/keys/used` as the contract says: the first use of a key promptly, uses batched, a key
// at most once a minute (on the injected clock), a failed send retried.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createCloudClient, LAST_USED_EVERY_MS, mirrorLastUsed } from "../../../core/cloud_link/mod.ts";
import { listen } from "../../fixtures/servers.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

type Used = { id: string; lastUsedAt: string }[];

test("the first use of each key is sent promptly and in one batch; a key again within the minute waits for it", async () => {
  const posts: Used[] = [];
  let refuse = false;
  const server = await listen(async (req) => {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/sdk/keys/used") {
      return new Response(null, { status: 404 });
    }
    const { keys } = await req.json();
    if (refuse) return Response.json({ error: { code: "INTERNAL", message: "down" } }, { status: 500 });
    posts.push(keys);
    return Response.json({ ok: true, updated: keys.length });
  });
  let now = Date.parse("2026-01-01T00:00:00.000Z");
  const cloud = createCloudClient({ endpoint: server.url, projectId: "prj_x", sdkSecret: "svcs_x" });
  const mirror = mirrorLastUsed({ cloud, log: () => {}, now: () => now });
  try {
    mirror.used("k1");
    mirror.used("k2");
    await waitFor("the first send", () => posts.length === 1);
    assert.deepEqual(posts[0].map((k) => k.id).sort(), ["k1", "k2"]);
    assert.equal(posts[0][0].lastUsedAt, "2026-01-01T00:00:00.000Z");
    now += 1_000;
    mirror.used("k1"); // within the minute: waits
    mirror.used("k3"); // a first use: promptly
    await waitFor("k3's send", () => posts.length === 2);
    assert.deepEqual(posts[1].map((k) => k.id), ["k3"]);
    now += LAST_USED_EVERY_MS;
    refuse = true;
    await mirror.flush();
    assert.equal(posts.length, 2, "the failed send is kept");
    refuse = false;
    await mirror.flush();
    assert.deepEqual(posts[2], [{ id: "k1", lastUsedAt: "2026-01-01T00:00:01.000Z" }], "the latest use, once a minute");
  } finally {
    await mirror.close();
    await server.close();
  }
});

test("uses the cloud refuses for good (a cloud without the route: 404) are dropped and logged once", async () => {
  let posts = 0;
  const server = await listen(() => {
    posts++;
    return Response.json({ error: { code: "NOT_FOUND", message: "No such route" } }, { status: 404 });
  });
  let now = 0;
  const logs: string[] = [];
  const cloud = createCloudClient({ endpoint: server.url, projectId: "prj_x", sdkSecret: "svcs_x" });
  const mirror = mirrorLastUsed({ cloud, log: (m) => logs.push(m), now: () => now });
  try {
    mirror.used("k1");
    await waitFor("the refused send", () => posts === 1 && logs.length === 1);
    await mirror.flush();
    assert.equal(posts, 1, "dropped, not retried");
    now += LAST_USED_EVERY_MS;
    mirror.used("k2");
    await waitFor("the next use's send", () => posts === 2);
    await mirror.flush();
    assert.equal(logs.length, 1, "logged once");
  } finally {
    await mirror.close();
    await server.close();
  }
});
