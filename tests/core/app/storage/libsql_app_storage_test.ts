// The app storage contract on both engines: the native binding (`:memory:`, `file:`) and @libsql/client
// (an injected client, and the remote path through the Hrana fixture).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { openAppStorage } from "../../../../core/app/storage/mod.ts";
import type { AppStorage } from "../../../../core/app/storage/mod.ts";
import { mintAgentKey } from "../../../../core/contract/mod.ts";
import { newViolation } from "../../../../core/contract/mod.ts";
import { type HranaServer, startHranaServer } from "../../../fixtures/hrana_server.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";

const dir = tempDir("svc-app-storage-");
let hrana: HranaServer | undefined;
const injected: { close(): void }[] = [];
after(async () => {
  for (const client of injected) client.close();
  await hrana?.close();
  dir.remove();
});

const backends: [string, () => Promise<AppStorage>][] = [
  [":memory:", () => openAppStorage(":memory:")],
  ["file:", () => openAppStorage(`file:${dir.file("app.db")}`)],
  ["an injected client", () => {
    const client = createClient({ url: `file:${dir.file("injected.db")}` });
    injected.push(client);
    return openAppStorage(client);
  }],
  ["remote http:// (Hrana fixture)", async () => {
    hrana = await startHranaServer(dir.file("remote.db"), { authToken: "t" });
    return openAppStorage(hrana.url, { authToken: "t" });
  }],
];

for (const [name, open] of backends) {
  describe(`LibsqlAppStorage on ${name}`, () => {
    let storage: AppStorage;
    before(async () => storage = await open());
    after(() => storage.close());

    test("stores a key, finds it by hash and id, and serves its revocation at once", async () => {
      const { record } = await mintAgentKey("u1", { name: "k", scopes: ["a"], agentId: "u1" });
      assert.equal(await storage.findKeyByHash(record.hash), null, "unknown before it is stored");
      assert.equal(await storage.insertKey(record, "user", { mirror: true }), true);
      assert.deepEqual(await storage.findKeyByHash(record.hash), record, "known right after (no stale miss)");
      assert.deepEqual(await storage.findKeyById(record.id), record);
      assert.deepEqual(await storage.keyRevocationByHash(record.hash), { revokedAt: null });
      const revoked = await storage.revokeKey("u1", record.id, "2025-01-01T00:00:00.000Z", { mirror: true });
      assert.equal(revoked?.revokedAt, "2025-01-01T00:00:00.000Z");
      assert.deepEqual(await storage.keyRevocationByHash(record.hash), { revokedAt: "2025-01-01T00:00:00.000Z" });
      assert.equal((await storage.findKeyByHash(record.hash))?.revokedAt, "2025-01-01T00:00:00.000Z");
      assert.deepEqual((await storage.outboxHead(10)).map((i) => i.kind), ["key", "key"]);
    });

    test("records uses, and writes violations with their outbox items in one transaction", async () => {
      const { record } = await mintAgentKey("u2", { name: "k", scopes: [], agentId: "u2" });
      await storage.insertKey(record, "user");
      await storage.touchKeys(new Map([[record.id, "2025-02-01T00:00:00.000Z"]]));
      assert.equal((await storage.findKeyById(record.id))?.lastUsedAt, "2025-02-01T00:00:00.000Z");
      const before = await storage.outboxSize();
      const violations = Array.from(
        { length: 250 },
        (_, i) => newViolation("FORBIDDEN_SCOPE", { keyId: record.id, userId: "u2", message: `m${i}` }),
      );
      await storage.insertViolations(violations, { mirror: true });
      assert.equal((await storage.listViolations({ limit: 500, keyId: record.id })).length, 250);
      assert.equal(await storage.outboxSize(), before + 250);
    });
  });
}
