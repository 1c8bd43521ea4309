// In cloud mode, an address past its budget of refused agent keys is answered
// from the budget: its next made-up keys cost no verify call at the cloud,
// while a key the app has verified lately is still served.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { withClientAddress } from "../../core/http/mod.ts";
import { mint, notesSvc } from "../fixtures/notes_svc.ts";
import { listen } from "../fixtures/servers.ts";
import { startTestCloud } from "../fixtures/test_cloud.ts";

const ADDRESS = "198.51.100.77";

test("past its refused-key budget, an address's made-up keys in cloud mode cost no verify call at the cloud", async () => {
  const t = await startTestCloud();
  let verifies = 0;
  const server = await listen((req) => {
    if (new URL(req.url).pathname === "/v1/sdk/keys/verify") verifies += 1;
    return t.cloud.handle(req);
  });
  const client = createClient({ url: ":memory:" });
  const svc = notesSvc({
    mode: "cloud",
    cloud: { endpoint: server.url, projectId: t.project.id, sdkSecret: t.project.secret },
    storage: client,
    rateLimit: { refusalsPerAddress: { limit: 5, windowMs: 60_000 } },
  });
  const runWith = (key: string) =>
    svc.handle(withClientAddress(
      new Request("http://app.test/svc/agent/run", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ intent: "notes.list" }),
      }),
      ADDRESS,
    ));
  try {
    const valid = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await runWith(valid.key)).status, 200, "verified once, and cached");
    const made = (i: number) => `svc_live_${"m".repeat(30)}${String(i).padStart(4, "0")}`;
    for (let i = 0; i < 5; i++) assert.equal((await runWith(made(i))).status, 401);
    const before = verifies;
    for (let i = 5; i < 105; i++) {
      const res = await runWith(made(i));
      assert.equal(res.status, 429);
      assert.ok(Number(res.headers.get("retry-after")) >= 1);
    }
    // Only the first refusal past the budget (which finds the budget empty) asks the cloud; before: all 100.
    assert.ok(verifies - before <= 1, `${verifies - before} verify calls for 100 made-up keys past the budget`);
    assert.equal((await runWith(valid.key)).status, 200, "the address's verified key is still served");
  } finally {
    await svc.close?.();
    client.close();
    await server.close();
    await t.close();
  }
});

test("made-up access tokens at the OAuth revocation endpoint cost as few verify calls as at /svc/agent/run", async () => {
  const t = await startTestCloud();
  let verifies = 0;
  const server = await listen((req) => {
    if (new URL(req.url).pathname === "/v1/sdk/keys/verify") verifies += 1;
    return t.cloud.handle(req);
  });
  const client = createClient({ url: ":memory:" });
  const at = Date.parse("2026-03-01T00:00:00.000Z"); // a clock that stands still: no budget comes back meanwhile
  const svc = notesSvc({
    mode: "cloud",
    cloud: { endpoint: server.url, projectId: t.project.id, sdkSecret: t.project.secret },
    storage: client,
    oauth: {},
  }, () => at);
  const made = (i: number) => `svc_live_${"r".repeat(30)}${String(i).padStart(4, "0")}`;
  const revoke = (token: string, address: string) =>
    svc.handle(withClientAddress(
      new Request("http://app.test/svc/oauth/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: "svcc_any" }),
      }),
      address,
    ));
  const run = (key: string, address: string) =>
    svc.handle(withClientAddress(
      new Request("http://app.test/svc/agent/run", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ intent: "notes.list" }),
      }),
      address,
    ));
  try {
    await svc.ready;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const res = await revoke(made(i), ADDRESS);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      await res.body?.cancel();
    }
    const atRevoke = verifies;
    verifies = 0;
    for (let i = 1000; i < 2000; i++) await (await run(made(i), "198.51.100.78")).body?.cancel();
    const atRun = verifies;
    // Before: 1,000 verify calls at the revocation endpoint (one per token); /svc/agent/run: the budget (100) + 1.
    assert.equal(atRevoke, atRun, `revoke: ${atRevoke} verify calls, agent/run: ${atRun}`);
    assert.ok(atRevoke <= 101, `${atRevoke} verify calls for 1,000 made-up tokens`);
    assert.equal(statuses.get(200), 100, "the budget's made-up tokens get the RFC's 200");
    assert.equal(statuses.get(429), 900);
    const refused = await revoke(made(0), ADDRESS);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.equal((await refused.json()).error, "invalid_request");
  } finally {
    await svc.close?.();
    client.close();
    await server.close();
    await t.close();
  }
});
