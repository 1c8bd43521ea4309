// The app's storage contract suite: every method of AppStorage, the same tests
// against `:memory:`, a `file:` database and a remote `http://` database (the
// Hrana test fixture, with a token), as the cloud's storage suite runs.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { AppStorage } from "../../../core/app/app_storage.ts";
import { openAppStorage } from "../../../core/app/libsql_app_storage.ts";
import { type KeyRecord, mintAgentKey } from "../../../core/contract/agent_keys.ts";
import { newViolation } from "../../../core/contract/violation.ts";
import { storageBackends } from "../../cloud/storage/storage_backends.ts";

const backends = storageBackends(openAppStorage);

async function keyOf(userId: string, agentId = userId, createdAt = new Date().toISOString()): Promise<KeyRecord> {
  const { record } = await mintAgentKey(userId, { name: "k", scopes: ["notes:read", "notes:write"], agentId });
  return { ...record, createdAt };
}

const agt = () => `agt_${crypto.randomUUID()}`;

for (const [name, open] of backends.list) {
  describe(`AppStorage on ${name}`, () => {
    let storage: AppStorage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    test("says whether its database lives in memory only", async () => {
      assert.equal(await storage.inMemory(), name === ":memory:");
    });

    test("stores keys and finds them by id and hash; lists a user's keys oldest first", async () => {
      const second = await keyOf("ann", "ann", "2025-01-02T00:00:00.000Z");
      const first = await keyOf("ann", "ann", "2025-01-01T00:00:00.000Z");
      assert.equal(await storage.insertKey(second, "user"), true);
      assert.equal(await storage.insertKey(first, "user"), true);
      assert.deepEqual(await storage.findKeyById(first.id), first);
      assert.deepEqual(await storage.findKeyByHash(first.hash), first);
      assert.equal(await storage.findKeyByHash("0".repeat(64)), null);
      assert.equal(await storage.findKeyById(crypto.randomUUID()), null);
      assert.deepEqual((await storage.listKeys("ann")).map((k) => k.id), [first.id, second.id]);
      assert.deepEqual(await storage.listKeys("nobody"), []);
    });

    test("claims an agt_ id for its first user and refuses it to another, storing nothing", async () => {
      const agentId = agt();
      assert.equal(await storage.insertKey(await keyOf("bea", agentId), "claim"), true);
      assert.equal(await storage.insertKey(await keyOf("bea", agentId), "claim"), true, "the owner claims again");
      const stolen = await keyOf("cid", agentId);
      assert.equal(await storage.insertKey(stolen, "claim", { mirror: true }), false);
      assert.equal(await storage.findKeyById(stolen.id), null);
      assert.deepEqual(await storage.listKeys("cid"), []);
      assert.equal((await storage.outboxHead(1000)).some((i) => i.ref === stolen.id), false, "nothing queued");
    });

    test("revokes a key once, for its owner only, and sees the revocation by hash", async () => {
      const key = await keyOf("dan");
      await storage.insertKey(key, "user");
      assert.deepEqual(await storage.keyRevocationByHash(key.hash), { revokedAt: null });
      assert.equal(await storage.revokeKey("eve", key.id, "2025-01-01T00:00:00.000Z"), null, "not eve's key");
      const revoked = await storage.revokeKey("dan", key.id, "2025-02-01T00:00:00.000Z");
      assert.equal(revoked?.revokedAt, "2025-02-01T00:00:00.000Z");
      const again = await storage.revokeKey("dan", key.id, "2025-03-01T00:00:00.000Z");
      assert.equal(again?.revokedAt, "2025-02-01T00:00:00.000Z", "the first revocation time stays");
      assert.deepEqual(await storage.keyRevocationByHash(key.hash), { revokedAt: "2025-02-01T00:00:00.000Z" });
      assert.equal(await storage.keyRevocationByHash("f".repeat(64)), null);
      assert.equal(await storage.revokeKey("dan", crypto.randomUUID(), "2025-01-01T00:00:00.000Z"), null);
    });

    test("records the last use of keys in one write, never moving it back", async () => {
      const [a, b] = [await keyOf("fay"), await keyOf("fay")];
      await storage.insertKey(a, "user");
      await storage.insertKey(b, "user");
      await storage.touchKeys(new Map());
      await storage.touchKeys(new Map([[a.id, "2025-05-02T00:00:00.000Z"], [b.id, "2025-05-01T00:00:00.000Z"]]));
      await storage.touchKeys(new Map([[a.id, "2025-05-01T00:00:00.000Z"]]));
      assert.equal((await storage.findKeyById(a.id))?.lastUsedAt, "2025-05-02T00:00:00.000Z");
      assert.equal((await storage.findKeyById(b.id))?.lastUsedAt, "2025-05-01T00:00:00.000Z");
    });

    test("stores violations in chunks and lists them newest first, by key, up to a limit", async () => {
      const keyId = crypto.randomUUID();
      const violations = Array.from({ length: 250 }, (_, n) =>
        newViolation("FORBIDDEN_SCOPE", {
          keyId,
          userId: "gil",
          intent: `notes.n${n}`,
          message: `refused ${n}`,
          metadata: { n, nested: { ok: true } },
        }));
      await storage.insertViolations(violations);
      await storage.insertViolations([]);
      const listed = await storage.listViolations({ keyId, limit: 300 });
      assert.equal(listed.length, 250);
      assert.deepEqual(listed[0], violations[249]);
      assert.deepEqual(listed.at(-1), violations[0]);
      assert.deepEqual((await storage.listViolations({ keyId, limit: 2 })).map((v) => v.intent), [
        "notes.n249",
        "notes.n248",
      ]);
      assert.deepEqual(await storage.listViolations({ keyId: crypto.randomUUID(), limit: 10 }), []);
      assert.ok((await storage.listViolations({ limit: 1 })).length === 1);
    });

    test("queues mirrored keys, revocations and violations in the outbox, in order, in the same write", async () => {
      for (const item of await storage.outboxHead(10_000)) await storage.outboxDone([item.seq]);
      assert.equal(await storage.outboxSize(), 0);
      const key = await keyOf("hal", agt());
      assert.equal(await storage.insertKey(key, "claim", { mirror: true }), true);
      await storage.revokeKey("hal", key.id, new Date().toISOString(), { mirror: true });
      const violation = newViolation("REVOKED_KEY", { keyId: key.id, userId: "hal", message: "revoked key used" });
      await storage.insertViolations([violation], { mirror: true });
      await storage.insertKey(await keyOf("hal"), "user"); // not mirrored
      const queued = await storage.outboxHead(10);
      assert.deepEqual(queued.map((i) => [i.kind, i.ref, i.attempts]), [
        ["key", key.id, 0],
        ["key", key.id, 0],
        ["violation", violation.id, 0],
      ]);
      assert.deepEqual(JSON.parse(queued[2].body!), violation);
      assert.equal(queued[0].body, null, "a key is read from its table when sent");
      assert.ok(queued[0].seq < queued[1].seq && queued[1].seq < queued[2].seq);
      await storage.outboxFailed([queued[0].seq]);
      await storage.outboxFailed([queued[0].seq]);
      assert.equal((await storage.outboxHead(1))[0].attempts, 2);
      await storage.outboxDone([queued[0].seq]);
      assert.equal(await storage.outboxSize(), 2);
      assert.deepEqual((await storage.outboxHead(1)).map((i) => i.seq), [queued[1].seq]);
    });
  });
}

test("the remote backend really served the app storage over HTTP", () => {
  assert.ok(backends.remoteRequests() > 10);
});
