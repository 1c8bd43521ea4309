// Issue 13, finding 8: hybrid mode keeps its keys in `storage` and mirrors them
// to the cloud, so an in-memory database (the default) would forget every key
// at a restart while the cloud still accepts them. createSvc refuses it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { createSvc } from "../../../mod.ts";
import { mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

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

test("createSvc accepts hybrid mode on a database file", async () => {
  const dir = tempDir("svc-modes-");
  const svc = notesSvc({ mode: "hybrid", cloud, storage: `file:${dir.file("app.db")}` });
  try {
    await svc.ready;
    assert.equal((await mint(svc, "alice", [])).agentId, "alice");
  } finally {
    await svc.close();
    dir.remove();
  }
});

test("cloud mode may run on in-memory storage: it keeps no key there", async () => {
  const client = createClient({ url: ":memory:" });
  const svc = notesSvc({ mode: "cloud", cloud, storage: client });
  try {
    await svc.ready;
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE name = 'app_keys'");
    const keys = tables.rows.length
      ? Number((await client.execute("SELECT COUNT(*) AS n FROM app_keys")).rows[0].n)
      : 0;
    assert.equal(keys, 0);
  } finally {
    await svc.close();
    client.close();
  }
});
