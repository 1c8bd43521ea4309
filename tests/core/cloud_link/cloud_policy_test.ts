// @slow: a cloud on a socket, stopped and started again
// A hybrid app mints keys only within the project's policy: started while the cloud is down, with no policy kept from
// an earlier run, it refuses to mint (503 CLOUD_UNAVAILABLE with Retry-After) until it has read the policy; then it
// mints within it; restarted while the cloud is down again, the policy it kept in its own storage bounds its keys.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc, SvcConfig } from "../../../mod.ts";
import { createSvcWith } from "../../../core/app/mod.ts";
import { asUser, errorOf, intents, SCOPES } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const DAY_MS = 86_400_000;

describe("a hybrid app's keys and the project's keyLifetime policy", () => {
  let dir: string;
  let cloud: CloudServer;
  const at = Date.parse("2026-03-01T00:00:00.000Z");
  const now = () => at;
  const apps: Svc[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-cloud-policy-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`, { now });
    assert.equal((await cloud.sdk("PUT", "/v1/sdk/policy", { keyLifetime: { maxDays: 30 } })).status, 200);
    await cloud.stop();
  });
  after(async () => {
    for (const app of apps) await app.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function hybridApp(): Svc {
    const app = createSvcWith({
      mode: "hybrid",
      userResolver: (req) => req.headers.get("x-user"),
      scopes: SCOPES,
      intents,
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig(),
      logger: () => {},
    } as SvcConfig, { now, policyRefreshMs: 20 });
    apps.push(app);
    return app;
  }
  const mint = (app: Svc, extra: Record<string, unknown> = {}) =>
    asUser(app, "alice", "POST", "/svc/keys", { name: "k", scopes: [], ...extra });

  test("started with the cloud down it mints nothing until the policy is read, then mints within it", async () => {
    const app = hybridApp();
    await app.ready;
    for (const extra of [{}, { expiresInDays: 3650 }]) {
      const refused = await mint(app, extra);
      assert.equal(refused.status, 503);
      assert.ok(Number(refused.headers.get("retry-after")) >= 1, "says when to try again");
      const error = await errorOf(refused);
      assert.equal(error.code, "CLOUD_UNAVAILABLE");
      assert.match(error.message, /policy/);
    }
    assert.deepEqual((await (await asUser(app, "alice", "GET", "/svc/keys")).json()).keys, [], "no key was minted");

    await cloud.start();
    const beyond = await waitFor("the app to read the policy", async () => {
      const res = await mint(app, { expiresInDays: 3650 });
      return res.status === 503 ? (await res.body?.cancel(), false) : res;
    });
    assert.equal(beyond.status, 400, "3,650 days is past the project's 30");
    const minted = await mint(app);
    assert.equal(minted.status, 201);
    const [key] = (await (await asUser(app, "alice", "GET", "/svc/keys")).json()).keys;
    assert.equal(key.expiresAt, new Date(at + 30 * DAY_MS).toISOString(), "a key asked without expiry gets the max");
    await app.close();
  });

  test("restarted while the cloud is down, it mints within the policy it kept from the earlier run", async () => {
    await cloud.stop();
    const app = hybridApp();
    await app.ready;
    const beyond = await mint(app, { expiresInDays: 3650 });
    assert.equal(beyond.status, 400);
    const minted = await mint(app);
    assert.equal(minted.status, 201);
    const { id } = await minted.json();
    const keys = (await (await asUser(app, "alice", "GET", "/svc/keys")).json()).keys;
    assert.equal(keys.find((k: { id: string }) => k.id === id).expiresAt, new Date(at + 30 * DAY_MS).toISOString());
  });
});
