// @slow: a cloud on a socket
// OAuth grants in cloud mode, where the cloud keeps a grant's keys: a revoke of any key of a grant (the user's, at
// the app; an operator's, at the cloud) ends the grant, so within a second the client can neither call nor refresh,
// even while it refreshes back to back; two refreshes of one token at once leave no working token; the user's
// listing shows a grant once, and the cloud deletes the keys a grant replaced after an hour. A grant ended while the
// cloud could not be reached has its key revoked by the client's retry.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc } from "../../../mod.ts";
import { asAgent, asUser, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { grantOf, refreshOnce, tokenRequest } from "../../fixtures/oauth_app.ts";
import { waitFor } from "../../fixtures/wait_for.ts";
import { type FaultProxy, startFaultProxy } from "../../fixtures/fault_proxy.ts";
import { openDatabase } from "../../../core/db/mod.ts";
import { cloudKeys, createCloudClient } from "../../../core/cloud_link/mod.ts";

/** Looks for at most about a second (the contract's bound for a revoke reaching another process). */
const WITHIN_A_SECOND = 100;

describe("OAuth grants in cloud mode", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;
  let at = Date.parse("2026-05-01T00:00:00.000Z");
  const now = () => at;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-grants-cloud-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`, { now });
    svc = notesSvc({
      mode: "cloud",
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig(),
      oauth: { tokenRequestsPerGrant: false },
    }, now);
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const handle = (req: Request) => svc.handle(req);
  const atApp = async (key: string) => (await asAgent(svc, key, "GET", "/svc/agent/intents")).status;
  const refused = (key: string) =>
    waitFor("the key to be refused", async () => await atApp(key) === 401, WITHIN_A_SECOND);
  const listed = async (user: string) => (await (await asUser(svc, user, "GET", "/svc/keys")).json()).keys;

  test("the user's revoke of a key the grant replaced ends the grant: no call, no refresh", async () => {
    const first = await grantOf(handle, "bob");
    const [seen] = await listed("bob");
    const second = await refreshOnce(handle, first.clientId, first.refresh);
    assert.equal(second.status, 200);
    assert.equal((await asUser(svc, "bob", "DELETE", `/svc/keys/${seen.id}`)).status, 200);
    await refused(second.access!);
    assert.equal((await refreshOnce(handle, first.clientId, second.refresh!)).error, "invalid_grant");
  });

  test("a revoke sent during a refresh storm (the user's at the app, an operator's at the cloud) ends the grant", async () => {
    for (const who of ["user", "operator"] as const) {
      const user = `storm-${who}`;
      const first = await grantOf(handle, user);
      let tokens = { access: first.access, refresh: first.refresh };
      let refreshes = 0;
      let ended = false;
      const storm = (async () => {
        for (; refreshes < 300; refreshes++) {
          const next = await refreshOnce(handle, first.clientId, tokens.refresh);
          if (next.status !== 200) return void (ended = true);
          tokens = { access: next.access!, refresh: next.refresh! };
        }
      })();
      const revoke = (async () => {
        const [seen] = await listed(user);
        if (who === "user") assert.equal((await asUser(svc, user, "DELETE", `/svc/keys/${seen.id}`)).status, 200);
        else assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys?userId=${user}`)).status, 200);
      })();
      await Promise.all([storm, revoke]);
      assert.ok(ended, `${who}: the client went on refreshing (${refreshes} refreshes)`);
      await refused(tokens.access);
      assert.equal((await refreshOnce(handle, first.clientId, tokens.refresh)).status, 400);
      const active = (await (await cloud.sdk("GET", `/v1/sdk/keys?userId=${user}`)).json()).keys
        .filter((k: { revokedAt: string | null }) => k.revokedAt === null);
      assert.deepEqual(active, [], `${who}: no key of the grant is active at the cloud`);
    }
  });

  test("two refreshes of one token at once leave no working token", async () => {
    for (let round = 0; round < 10; round++) {
      const first = await grantOf(handle, "carol");
      const both = await Promise.all([
        refreshOnce(handle, first.clientId, first.refresh),
        refreshOnce(handle, first.clientId, first.refresh),
      ]);
      for (const access of [first.access, ...both.map((r) => r.access)]) {
        if (access !== undefined) await refused(access);
      }
    }
  });

  test("an OAuth grant's key is not rerolled at the cloud (404): the grant rotates its own key", async () => {
    await grantOf(handle, "hank");
    const [seen] = await listed("hank");
    assert.equal((await asUser(svc, "hank", "POST", `/svc/keys/${seen.id}/reroll`, {})).status, 404);
    assert.equal((await cloud.sdk("GET", "/v1/sdk/keys?userId=hank").then((r) => r.json())).keys.length, 1);
  });

  test("cloud mode's keys revoke by id, the cloud checking the owner, and never list the user's keys", async () => {
    const real = createCloudClient(cloud.appConfig());
    let listings = 0;
    const keys = cloudKeys({ ...real, listKeys: (user) => (listings++, real.listKeys(user)) }, { sharedInbox: false });
    const minted = await keys.mint("frank", { name: "k", scopes: [], grantId: "g-frank" });
    assert.equal(await keys.revoke("mallory", minted.key.id), null, "another user's key is not found");
    assert.ok(await keys.revoke("frank", minted.key.id, "oauth"));
    assert.equal(listings, 0);
    await keys.close();
  });

  test("the user's listing shows a grant once; the cloud deletes the keys it replaced an hour after", async () => {
    const first = await grantOf(handle, "dave");
    let refresh = first.refresh;
    for (let i = 0; i < 10; i++) {
      const next = await refreshOnce(handle, first.clientId, refresh);
      assert.equal(next.status, 200);
      refresh = next.refresh!;
    }
    const keys = await listed("dave");
    assert.equal(keys.length, 1);
    assert.equal(keys[0].revokedAt, null);
    at += 3_600_001;
    const last = await refreshOnce(handle, first.clientId, refresh);
    assert.equal(last.status, 200);
    const revoke = await tokenRequest(handle, { token: last.refresh!, client_id: first.clientId }, "/svc/oauth/revoke");
    assert.equal(revoke.status, 200);
    const db = await openDatabase(`file:${join(dir, "cloud.db")}`);
    try {
      const rows = await db.execute("SELECT COUNT(*) AS n FROM cloud_keys WHERE user_id = 'dave'");
      assert.equal(Number(rows.rows[0].n), 2, "the new key and the one it replaced; the ten before are deleted");
    } finally {
      db.close();
    }
  });

  test("the cloud's auto-revoke counts a grant's keys together: refreshing between refused calls does not escape it", async () => {
    const policy = { autoRevoke: { threshold: 3, windowMinutes: 10, kinds: ["FORBIDDEN_SCOPE"] } };
    assert.equal((await cloud.sdk("PUT", "/v1/sdk/policy", policy)).status, 200);
    try {
      let tokens = await grantOf(handle, "gina", ["notes:read"]);
      let refreshed = 0;
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 2; i++) {
          assert.equal((await run(svc, tokens.access, "notes.create", { title: "x" })).status, 403);
        }
        await waitFor("the violations to reach the cloud", async () => await svc.sync() === 0);
        const next = await refreshOnce(handle, tokens.clientId, tokens.refresh);
        if (next.status !== 200) break;
        refreshed++;
        tokens = { ...tokens, access: next.access!, refresh: next.refresh! };
      }
      assert.equal(refreshed, 1, "the grant ended at its third refused call, in its second key");
      await refused(tokens.access);
    } finally {
      await cloud.sdk("PUT", "/v1/sdk/policy", { autoRevoke: null });
    }
  });
});

describe("OAuth grants in cloud mode while the cloud link fails", () => {
  let dir: string;
  let cloud: CloudServer;
  let proxy: FaultProxy;
  let svc: Svc;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-grants-cloud-outage-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    proxy = await startFaultProxy(cloud.url);
    svc = notesSvc({
      mode: "cloud",
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig({ endpoint: proxy.url }),
      oauth: { tokenRequestsPerGrant: false },
    });
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await proxy.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const handle = (req: Request) => svc.handle(req);
  const verified = async (key: string) =>
    (await (await cloud.sdk("POST", "/v1/sdk/keys/verify", { key })).json()).valid;

  test("a revoke the cloud did not hear is done by the client's retry", async () => {
    const granted = await grantOf(handle, "erin");
    proxy.setMode("reset");
    const failed = await tokenRequest(
      handle,
      { token: granted.refresh, client_id: granted.clientId },
      "/svc/oauth/revoke",
    );
    proxy.setMode("pass");
    assert.equal(failed.status >= 500, true, "the revoke could not be done");
    assert.equal(await verified(granted.access), true);
    const retried = await tokenRequest(
      handle,
      { token: granted.refresh, client_id: granted.clientId },
      "/svc/oauth/revoke",
    );
    assert.equal(retried.status, 200);
    assert.equal(await verified(granted.access), false, "the retry revoked the grant's key at the cloud");
    assert.equal((await asAgent(svc, granted.access, "GET", "/svc/agent/intents")).status, 401);
    assert.equal((await refreshOnce(handle, granted.clientId, granted.refresh)).error, "invalid_grant");
  });

  test("a replayed refresh token that ended the grant during the outage revokes the key when presented again", async () => {
    const granted = await grantOf(handle, "frank");
    const next = await refreshOnce(handle, granted.clientId, granted.refresh);
    assert.equal(next.status, 200);
    proxy.setMode("reset");
    const replayed = await refreshOnce(handle, granted.clientId, granted.refresh);
    proxy.setMode("pass");
    assert.ok(replayed.status >= 500, "the grant's key could not be revoked");
    assert.equal(await verified(next.access!), true);
    assert.equal((await refreshOnce(handle, granted.clientId, granted.refresh)).error, "invalid_grant");
    assert.equal(await verified(next.access!), false, "the second presentation revoked the grant's key");
  });
});

describe("OAuth grants in hybrid mode", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-grants-hybrid-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    svc = notesSvc({
      mode: "hybrid",
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig(),
      oauth: { tokenRequestsPerGrant: false },
    });
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const handle = (req: Request) => svc.handle(req);
  const inbox = (key: string) => fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });

  test("the user's revoke of a key the grant replaced ends the grant at the app and at the cloud", async () => {
    const first = await grantOf(handle);
    const [seen] = (await (await asUser(svc, "alice", "GET", "/svc/keys")).json()).keys;
    const second = await refreshOnce(handle, first.clientId, first.refresh);
    assert.equal(await svc.sync(), 0);
    assert.equal((await inbox(second.access!)).status, 200);
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${seen.id}`)).status, 200);
    assert.equal(await svc.sync(), 0);
    assert.equal((await inbox(second.access!)).status, 401, "the key in force is revoked at the cloud too");
    assert.equal((await asAgent(svc, second.access!, "GET", "/svc/agent/intents")).status, 401);
    assert.equal((await refreshOnce(handle, first.clientId, second.refresh!)).error, "invalid_grant");
  });
});
