// The app's storage contract suite: every method of AppStorage, the same tests
// against `:memory:`, a `file:` database and a remote `http://` database (the
// Hrana test fixture, with a token), as the cloud's storage suite runs.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { storageBackends } from "../../../cloud/database/storage_backends.ts";
import { type AppStorage, openAppStorage } from "../../../../core/app/storage/mod.ts";
import { type KeyRecord, mintAgentKey, newViolation } from "../../../../core/contract/mod.ts";

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

    test("deletes violations made before a time, in chunks, and keeps the later ones", async () => {
      const keyId = crypto.randomUUID();
      const at = (createdAt: string) => ({
        ...newViolation("UNKNOWN_INTENT", { keyId, userId: "ivy", message: "unknown" }),
        createdAt,
      });
      const old = Array.from({ length: 2500 }, () => at("2020-01-01T00:00:00.000Z"));
      const kept = [at("2021-01-01T00:00:00.000Z"), at("2022-01-01T00:00:00.000Z")];
      await storage.insertViolations([...old, ...kept]);
      assert.equal(await storage.purgeViolations("2021-01-01T00:00:00.000Z"), 2500);
      assert.deepEqual((await storage.listViolations({ keyId, limit: 10 })).map((v) => v.id), [kept[1].id, kept[0].id]);
      assert.equal(await storage.purgeViolations("2021-01-01T00:00:00.000Z"), 0);
    });

    test("sets aside refused items with their reason, purges them by age and the oldest over the limit, never a key record", async () => {
      for (const item of await storage.outboxHead(10_000)) await storage.outboxDone([item.seq]);
      const key = await keyOf("joe", "joe", "2020-01-01T00:00:00.000Z");
      await storage.insertKey(key, "user", { mirror: true });
      const report = (n: number, createdAt: string) => ({
        ...newViolation("FORBIDDEN_SCOPE", { keyId: key.id, userId: "joe", message: `m${n}` }),
        createdAt,
      });
      const old = [report(0, "2020-01-01T00:00:00.000Z"), report(1, "2020-01-02T00:00:00.000Z")];
      const recent = [report(2, "2020-02-01T00:00:00.000Z"), report(3, "2020-02-02T00:00:00.000Z")];
      const waiting = [4, 5, 6].map((n) => report(n, "2020-01-01T00:00:00.000Z"));
      await storage.insertViolations([...old, ...recent, ...waiting], { mirror: true });
      const refused = new Set([...old.map((v) => v.id), ...recent.map((v) => v.id)]);
      const head = await storage.outboxHead(100);
      for (let i = 0; i < 20; i++) await storage.outboxFailed([head[0].seq]); // the key record: transient failures
      await storage.outboxSetAside(head.filter((i) => refused.has(i.ref)).map((i) => i.seq), "VALIDATION_ERROR: x");
      const refs = async () => (await storage.outboxHead(100)).map((i) => i.ref);
      const setAsideCount = async () => (await storage.outboxSetAsideByReason()).reduce((n, r) => n + r.count, 0);
      const set = { setAsideBefore: "2020-01-15T00:00:00.000Z" };
      assert.deepEqual(await refs(), [key.id, ...waiting.map((v) => v.id)], "set-aside items are never sent again");
      assert.deepEqual(await storage.outboxSetAsideByReason(), [{ reason: "VALIDATION_ERROR: x", count: 4 }]);
      assert.equal(await storage.outboxSize(), 4, "the key record and the waiting reports");

      assert.deepEqual(await storage.purgeOutbox({ ...set, limit: 100 }), { expired: 2, dropped: 0 });
      assert.equal(await setAsideCount(), 2, "the recent set-aside reports stay");
      assert.deepEqual(await storage.purgeOutbox({ ...set, limit: 4 }), { expired: 0, dropped: 1 });
      assert.equal(await setAsideCount(), 1, "set-aside ones go first");
      assert.deepEqual(await refs(), [key.id, ...waiting.map((v) => v.id)]);
      assert.deepEqual(await storage.purgeOutbox({ ...set, limit: 1 }), { expired: 0, dropped: 3 });
      assert.equal(await setAsideCount(), 0);
      assert.deepEqual(await refs(), [key.id, waiting[2].id], "then the oldest waiting ones");
      assert.equal((await storage.outboxHead(1))[0].attempts, 20, "the key record stays, however often it failed");
      await storage.outboxDone((await storage.outboxHead(100)).map((i) => i.seq));
    });
  });
}

test("the remote backend really served the app storage over HTTP", () => {
  assert.ok(backends.remoteRequests() > 10);
});
