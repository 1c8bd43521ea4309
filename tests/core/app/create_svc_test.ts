// Issue 13, finding 8: hybrid mode keeps its keys in `storage` and mirrors them
// to the cloud, so an in-memory database (the default, or an injected Client on
// :memory:) would forget every key at a restart while the cloud still accepts
// them. createSvc refuses it. Cloud mode keeps no key in `storage` at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { createSvc } from "../../../mod.ts";
import { mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { listen } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { keepPolicy } from "../../fixtures/kept_policy.ts";
import { startTestCloud } from "../../fixtures/test_cloud.ts";

const cloud = { endpoint: "http://127.0.0.1:1", projectId: "prj_x", sdkSecret: "svcs_x" };

test("createSvc refuses hybrid mode on the default or an explicit in-memory storage, saying why", () => {
  for (const storage of [undefined, ":memory:", "file::memory:", "file::memory:?cache=shared"]) {
    assert.throws(
      () => createSvc({ mode: "hybrid", cloud, storage, userResolver: () => null, scopes: [] }),
      (error: Error) => /hybrid/.test(error.message) && /:memory:/.test(error.message) && /file:/.test(error.message),
      String(storage),
    );
  }
});

test("createSvc refuses a retention, purge interval or outbox limit that is not a positive number", () => {
  for (const bad of [0, -1, Number.NaN, Infinity]) {
    assert.throws(() => notesSvc({ violationRetentionMs: bad }), /violationRetentionMs must be a positive number/);
    assert.throws(() => notesSvc({ purgeIntervalMs: bad }), /purgeIntervalMs must be a positive number/);
    assert.throws(
      () => notesSvc({ mode: "hybrid", storage: "file:x.db", cloud: { ...cloud, setAsideRetentionMs: bad } }),
      /cloud.setAsideRetentionMs must be a positive number/,
    );
    assert.throws(
      () => notesSvc({ mode: "hybrid", storage: "file:x.db", cloud: { ...cloud, outboxLimit: bad } }),
      /cloud.outboxLimit must be a positive number of items/,
    );
  }
});

test("createSvc accepts hybrid mode on a database file", async () => {
  const dir = tempDir("svc-modes-");
  await keepPolicy(`file:${dir.file("app.db")}`); // the cloud is not there: a policy read on an earlier run
  const svc = notesSvc({ mode: "hybrid", cloud, storage: `file:${dir.file("app.db")}` });
  try {
    await svc.ready;
    assert.equal((await mint(svc, "alice", [])).agentId, "alice");
  } finally {
    await svc.close();
    dir.remove();
  }
});

test("createSvc refuses hybrid mode on an injected libSQL Client opened on :memory:, with the same message", async () => {
  for (const url of [":memory:", "file::memory:?cache=shared"]) {
    const client = createClient({ url });
    const svc = notesSvc({ mode: "hybrid", cloud, storage: client });
    try {
      await assert.rejects(
        svc.ready,
        (error: Error) => /hybrid/.test(error.message) && /:memory:/.test(error.message) && /file:/.test(error.message),
        url,
      );
      assert.equal((await svc.handle(new Request("http://app.test/svc/keys"))).status, 503, "requests fail closed");
    } finally {
      await svc.close();
      client.close();
    }
  }
});

test("createSvc accepts hybrid mode on an injected libSQL Client opened on a file", async () => {
  const dir = tempDir("svc-modes-");
  const client = createClient({ url: `file:${dir.file("app.db")}` });
  await keepPolicy(client);
  const svc = notesSvc({ mode: "hybrid", cloud, storage: client });
  try {
    await svc.ready;
    assert.equal((await mint(svc, "alice", [])).agentId, "alice");
  } finally {
    await svc.close();
    client.close();
    dir.remove();
  }
});

test("cloud mode may run on in-memory storage: a key minted through it is kept by the cloud, not the app", async () => {
  const t = await startTestCloud();
  const server = await listen(t.cloud.handle);
  const client = createClient({ url: ":memory:" });
  const svc = notesSvc({
    mode: "cloud",
    cloud: { endpoint: server.url, projectId: t.project.id, sdkSecret: t.project.secret },
    storage: client,
  });
  try {
    const minted = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await run(svc, minted.key, "notes.list")).status, 200, "the app verifies it through the cloud");
    assert.equal((await t.agent(minted.key, "GET", "/v1/agent/inbox")).status, 200, "the cloud holds the key");
    const keys = await client.execute("SELECT COUNT(*) AS n FROM app_keys");
    assert.equal(Number(keys.rows[0].n), 0, "no key row in the app's storage");
    const queued = await client.execute("SELECT COUNT(*) AS n FROM app_outbox WHERE kind = 'key'");
    assert.equal(Number(queued.rows[0].n), 0, "no key record queued either");
  } finally {
    await svc.close();
    client.close();
    await server.close();
    await t.close();
  }
});
