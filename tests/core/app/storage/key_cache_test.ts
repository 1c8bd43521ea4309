// The app's key cache on a `file:` database outlives other connections' commits that change no key (app migration 16):
// the activity records the file's worker thread writes are such commits, dozens a second under load, and each one made
// every cached key be read again. A key changed through another connection is still read again on the next request.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type AppStorage, openAppStorage } from "../../../../core/app/storage/mod.ts";
import { openDatabase, type Statement } from "../../../../core/db/mod.ts";
import { keyRecord } from "../../../fixtures/key_records.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";
import { nextTurns } from "../../../fixtures/wait_for.ts";

const dir = tempDir("svc-key-cache-");
after(() => dir.remove());

/** The SQL of each single statement the storage runs from now on (the real database still runs it). */
function statementsOf(storage: AppStorage): string[] {
  const seen: string[] = [];
  const execute = storage.db.execute.bind(storage.db);
  storage.db.execute = (statement: Statement | string) => {
    seen.push(typeof statement === "string" ? statement : statement.sql);
    return execute(statement);
  };
  return seen;
}

/** Requests arrive in event-loop turns: the next one comes after this turn. */
const nextRequest = () => nextTurns(2);

describe("the app's key cache on a file", () => {
  test("another connection's commit that changes no key costs one counter read a turn, not a read per key", async () => {
    const url = `file:${dir.file("unrelated.db")}`;
    const storage = await openAppStorage(url);
    const other = await openDatabase(url);
    try {
      const keys = [keyRecord("u1"), keyRecord("u2"), keyRecord("u3")];
      for (const key of keys) await storage.insertKey(key, "user");
      const unrelated = (agentId: string) =>
        other.execute({
          sql: "INSERT INTO app_agent_claims (agent_id, user_id, created_at) VALUES (?, ?, ?)",
          args: [agentId, "u9", new Date().toISOString()],
        });
      // The first commit of another connection is checked against a counter not read yet: the keys are read again once.
      await unrelated("agt_first");
      await nextRequest();
      for (const key of keys) assert.equal((await storage.findKeyByHash(key.hash))?.id, key.id);
      const seen = statementsOf(storage);
      await unrelated("agt_second");
      await nextRequest();
      const found = await Promise.all(keys.map((key) => storage.findKeyByHash(key.hash)));
      assert.deepEqual(found.map((key) => key?.id), keys.map((key) => key.id));
      assert.deepEqual(seen, ["SELECT seq FROM app_key_changes WHERE id = 1"]);
    } finally {
      other.close();
      await storage.close();
    }
  });

  test("a key revoked through another connection is read again on the next request, and only then", async () => {
    const url = `file:${dir.file("revoked.db")}`;
    const [storage, other] = [await openAppStorage(url), await openAppStorage(url)];
    try {
      const key = keyRecord("u1");
      await storage.insertKey(key, "user");
      assert.equal((await storage.findKeyByHash(key.hash))?.revokedAt, null);
      assert.notEqual(await other.revokeKey("u1", key.id, new Date().toISOString()), null);
      await nextRequest();
      const seen = statementsOf(storage);
      assert.notEqual((await storage.findKeyByHash(key.hash))?.revokedAt, null);
      assert.equal(seen.length, 2, seen.join("\n")); // the counter, then the key
      await nextRequest();
      assert.notEqual((await storage.findKeyByHash(key.hash))?.revokedAt, null);
      assert.equal(seen.length, 2, seen.join("\n")); // cached again
    } finally {
      await other.close();
      await storage.close();
    }
  });
});
