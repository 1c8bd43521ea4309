// Cloud mode's verification cache against a real cloud over a socket, with a
// cloud client whose verify answers late (the race of issue 13, finding 6), and
// one that counts the verifications it asks for.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cloudKeys } from "../../../core/cloud_link/mod.ts";
import { type CloudClient, createCloudClient } from "../../../core/cloud_link/mod.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

/** The real client, but each verify waits for `release()` after the cloud answered. */
function delayedVerify(real: CloudClient): { client: CloudClient; answered: Promise<void>; release(): void } {
  let release = () => {};
  let markAnswered = () => {};
  const gate = new Promise<void>((resolve) => release = resolve);
  const answered = new Promise<void>((resolve) => markAnswered = resolve);
  const client: CloudClient = {
    ...real,
    async verifyKey(secret) {
      const found = await real.verifyKey(secret);
      markAnswered();
      await gate;
      return found;
    },
  };
  return { client, answered, release };
}

describe("cloud mode's verification cache", () => {
  const dir = tempDir("svc-cloudkeys-");
  let cloud: CloudServer;
  before(async () => cloud = await startCloudServer(`file:${join(dir.path, "cloud.db")}`));
  after(async () => {
    await cloud.stop();
    dir.remove();
  });

  test("never caches a verification that was in flight when the key was revoked through the app", async () => {
    const real = createCloudClient(cloud.appConfig());
    const delayed = delayedVerify(real);
    const keys = cloudKeys(delayed.client, { sharedInbox: false, cacheTtlMs: 60_000 });
    const minted = await keys.mint("alice", { name: "k", scopes: [] });
    const inFlight = keys.verify(minted.secret);
    await delayed.answered; // the cloud said valid, before the revoke
    assert.ok(await keys.revoke("alice", minted.key.id));
    delayed.release();
    const late = await inFlight;
    assert.ok(late?.revokedAt, "the late answer is refused: its key was revoked meanwhile");
    const after = await cloudKeys(real, { sharedInbox: false }).verify(minted.secret);
    assert.equal(after, null, "the cloud refuses it");
    assert.equal(await keys.verify(minted.secret), null, "nothing was cached: the next verify asks the cloud");
    await keys.close();
  });

  test("forgets a cached verification when the revocation feed reports its key", async () => {
    const real = createCloudClient(cloud.appConfig());
    const keys = cloudKeys(real, { sharedInbox: false, cacheTtlMs: 60_000 });
    const minted = await keys.mint("bob", { name: "k", scopes: [] });
    assert.ok(await keys.verify(minted.secret), "verified and cached");
    assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${minted.key.id}`)).status, 200);
    assert.ok(await keys.verify(minted.secret), "the cache still trusts it: the feed has not spoken");
    keys.dropRevoked(minted.key.id, new Date().toISOString());
    assert.equal(await keys.verify(minted.secret), null);
    await keys.close();
  });

  test("asks the cloud once per cache period about a refused key, however often the agent repeats it", async () => {
    const real = createCloudClient(cloud.appConfig());
    let asked = 0;
    const counting: CloudClient = { ...real, verifyKey: (secret) => (asked++, real.verifyKey(secret)) };
    const keys = cloudKeys(counting, { sharedInbox: false, cacheTtlMs: 60_000, cacheMax: 3 });
    const minted = await keys.mint("carol", { name: "k", scopes: [] });
    assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${minted.key.id}`)).status, 200);
    for (let i = 0; i < 200; i++) assert.equal(await keys.verify(minted.secret), null);
    assert.equal(asked, 1, "one verification for 200 uses of the revoked key");
    for (let i = 0; i < 5; i++) assert.equal(await keys.verify(`svc_live_${"x".repeat(32)}${i}`), null);
    assert.equal(asked, 6, "each unknown key is asked about once");
    assert.equal(await keys.verify(minted.secret), null);
    assert.equal(asked, 7, "at most 3 refusals are remembered: the oldest was forgotten and asked again");
    await keys.close();
  });
});
