import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Cloud, createCloud } from "../../../cloud/mod.ts";
import { waitingPolls } from "../../../cloud/create_cloud.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { call, event, startTestCloud } from "../../fixtures/test_cloud.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { settlesWithin, waitFor } from "../../fixtures/wait_for.ts";

const held = (cloud: Cloud) => waitFor("the poll to be held", () => waitingPolls(cloud) === 1);

describe("GET /v1/agent/inbox?wait=", () => {
  test("wakes a waiting poller as soon as its event is stored in this process", async () => {
    // The re-check is an hour away: only the in-process wake-up can answer within the guard.
    const t = await startTestCloud({ recheckMs: 3_600_000 });
    const { key } = await t.mintKey("waiter");
    const polling = t.agent(key, "GET", "/v1/agent/inbox?wait=20");
    await held(t.cloud);
    await t.sdk("POST", "/v1/events", { body: event("wake-1", "waiter") });
    const res = await settlesWithin(polling, 10_000, "the long poll");
    assert.deepEqual(res.body.items.map((i: { eventId: string }) => i.eventId), ["wake-1"]);
    await t.close();
  });

  test("is not woken by another agent's event", async () => {
    const t = await startTestCloud({ recheckMs: 20 });
    const { key } = await t.mintKey("quiet");
    const polling = t.agent(key, "GET", "/v1/agent/inbox?wait=0.3");
    await t.sdk("POST", "/v1/events", { body: event("other-1", "someone-else") });
    assert.deepEqual((await polling).body, { items: [], nextCursor: 0 });
    await t.close();
  });

  test("answers an empty page when the wait runs out", async () => {
    const t = await startTestCloud();
    const { key } = await t.mintKey("patient");
    const res = await t.agent(key, "GET", "/v1/agent/inbox?cursor=7&wait=0.1");
    assert.deepEqual(res.body, { items: [], nextCursor: 7 });
    await t.close();
  });

  test("releases the waiter when the client goes away", async () => {
    const t = await startTestCloud({ recheckMs: 3_600_000 });
    const { key } = await t.mintKey("leaver");
    const controller = new AbortController();
    const polling = t.agent(key, "GET", "/v1/agent/inbox?wait=20", { signal: controller.signal }).catch(() => null);
    await held(t.cloud);
    controller.abort();
    await settlesWithin(polling, 10_000, "the aborted poll");
    await waitFor("the waiter to be released", () => waitingPolls(t.cloud) === 0);
    await settlesWithin(t.close(), 10_000, "close()");
  });

  test("answers waiting polls at once on close()", async () => {
    const t = await startTestCloud({ recheckMs: 3_600_000 });
    const { key } = await t.mintKey("closer");
    const polling = t.agent(key, "GET", "/v1/agent/inbox?wait=20");
    await held(t.cloud);
    await settlesWithin(t.cloud.close(), 10_000, "close()");
    assert.deepEqual((await polling).body, { items: [], nextCursor: 0 });
    t.client.close();
  });

  describe("with two cloud processes on one database file", () => {
    const dir = tempDir();
    after(() => dir.remove());

    test("a poller on one is woken by the re-check when the other stores the event", async () => {
      const url = `file:${dir.file("shared.db")}`;
      const a = createCloud({ db: url, recheckMs: 50 });
      const b = createCloud({ db: url, recheckMs: 50 });
      await Promise.all([a.ready, b.ready]);
      const admin = await openCloudStorage(url);
      const { project, sdkSecret } = await createProject(admin, "Shared");
      const sdk = { authorization: `Bearer ${sdkSecret}`, "x-svc-project": project.id };
      const minted = await call(b, "POST", "/v1/sdk/keys", {
        headers: sdk,
        body: { userId: "shared", name: "k", scopes: [] },
      });
      const polling = call(a, "GET", "/v1/agent/inbox?wait=20", {
        headers: { authorization: `Bearer ${minted.body.key}` },
      });
      await held(a);
      await call(b, "POST", "/v1/events", { headers: sdk, body: event("cross-1", "shared") });
      const res = await settlesWithin(polling, 10_000, "the cross-process poll");
      assert.deepEqual(res.body.items.map((i: { eventId: string }) => i.eventId), ["cross-1"]);
      await Promise.all([a.close(), b.close(), admin.close()]);
    });
  });
});
