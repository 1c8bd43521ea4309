// A database locked by another writer past the busy timeout: writes answer 503 STORAGE_BUSY with Retry-After
// (never 500 INTERNAL), reads keep working, the log says it once with the fix, and writes work again once the lock
// is released. The lock is a real write transaction on the file from a second connection.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { createCloudWithSeams } from "../../cloud/create_cloud.ts";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";
import { createProject } from "../../cloud/projects/projects.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const dir = tempDir();
after(() => dir.remove());

test("a write past the busy timeout answers 503 STORAGE_BUSY with Retry-After, reads 200, one log line; writes again once released", async () => {
  const url = `file:${dir.file("busy.db")}`;
  const setup = await openCloudStorage(url);
  const { project, sdkSecret } = await createProject(setup, "p");
  await setup.close();
  const logged: string[] = [];
  const cloud = createCloudWithSeams(
    { db: url, dashboard: false, logger: (message) => logged.push(message) },
    { busyTimeoutMs: 50 },
  );
  await cloud.ready;
  const holder = createClient({ url });
  try {
    const sdk = { authorization: `Bearer ${sdkSecret}`, "x-svc-project": project.id };
    const emit = (eventId: string) =>
      cloud.handle(
        new Request("http://cloud.test/v1/events", {
          method: "POST",
          headers: { ...sdk, "content-type": "application/json" },
          body: JSON.stringify({ eventId, type: "t", agentId: "a", payload: {} }),
        }),
      );
    assert.equal((await emit("before")).status, 202);

    const lock = await holder.transaction("write"); // BEGIN IMMEDIATE: holds the write lock
    try {
      for (const eventId of ["locked-1", "locked-2"]) {
        const res = await emit(eventId);
        const body = await res.json();
        assert.equal(res.status, 503, JSON.stringify(body));
        assert.equal(body.error.code, "STORAGE_BUSY");
        assert.match(res.headers.get("retry-after") ?? "", /^\d+$/);
      }
      const read = await cloud.handle(new Request("http://cloud.test/v1/sdk/keys?userId=u", { headers: sdk }));
      assert.equal(read.status, 200, await read.text());
    } finally {
      await lock.rollback();
    }
    assert.equal((await emit("after")).status, 202);
    const busy = logged.filter((m) => m.startsWith("STORAGE_BUSY:"));
    assert.equal(busy.length, 1, logged.join("\n"));
    assert.match(busy[0], /locked by another writer past the busy timeout/);
    assert.ok(!logged.some((m) => m.startsWith("INTERNAL")), logged.join("\n"));
  } finally {
    holder.close();
    await cloud.close();
  }
});

test("a feed poll that must write a reroll's due revocation is still answered while the database is locked, and carries it once released", async () => {
  const url = `file:${dir.file("due.db")}`;
  const setup = await openCloudStorage(url);
  const { project, sdkSecret } = await createProject(setup, "p");
  await setup.close();
  let now = Date.parse("2026-11-27T12:00:00Z");
  const cloud = createCloudWithSeams({ db: url, dashboard: false, logger: () => {} }, {
    busyTimeoutMs: 50,
    now: () => now,
  });
  await cloud.ready;
  const holder = createClient({ url });
  try {
    const sdk = { authorization: `Bearer ${sdkSecret}`, "x-svc-project": project.id };
    const call = (method: string, path: string, body?: unknown) =>
      cloud.handle(
        new Request(`http://cloud.test${path}`, {
          method,
          headers: body === undefined ? sdk : { ...sdk, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    const minted = await (await call("POST", "/v1/sdk/keys", { userId: "u", name: "k", scopes: [] })).json();
    const rerolled = await call("POST", `/v1/sdk/keys/${minted.id}/reroll`, { userId: "u", graceMinutes: 1 });
    assert.equal(rerolled.status, 201, await rerolled.text());
    now += 2 * 60_000; // the grace is over: the next feed poll writes the old key's revocation

    const lock = await holder.transaction("write");
    try {
      const polled = await call("GET", "/v1/sdk/keys/revocations?after=0");
      const body = await polled.json();
      assert.equal(polled.status, 200, JSON.stringify(body));
      assert.deepEqual(body.revocations, []);
    } finally {
      await lock.rollback();
    }
    const carried = await (await call("GET", "/v1/sdk/keys/revocations?after=0")).json();
    assert.deepEqual(carried.revocations.map((r: { keyId: string }) => r.keyId), [minted.id]);
  } finally {
    holder.close();
    await cloud.close();
  }
});
