// The storage contract suite: the same tests against `:memory:`, a `file:`
// database and a remote `http://` database (the Hrana test fixture, with a token).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createProject } from "../../../cloud/projects/projects.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import { storageBackends } from "./storage_backends.ts";

const backends = storageBackends();

for (const [name, open] of backends.list) {
  describe(`CloudRepositories on ${name}`, () => {
    let storage: CloudRepositories;
    let projectId: string;
    before(async () => {
      storage = await open();
      projectId = (await createProject(storage, "Storage")).project.id;
    });
    after(() => storage.close());

    test("creates, finds, lists and rotates projects", async () => {
      const { project } = await createProject(storage, "Other");
      assert.deepEqual(await storage.projects.findProject(project.id), project);
      assert.equal(await storage.projects.findProject("prj_unknown"), null);
      assert.ok((await storage.projects.listProjects()).some((p) => p.id === project.id));
      assert.equal(
        await storage.projects.rotateProjectSecret(project.id, "f".repeat(64), new Date().toISOString()),
        true,
      );
      assert.equal((await storage.projects.findProject(project.id))?.secretHash, "f".repeat(64));
      assert.equal(
        await storage.projects.rotateProjectSecret("prj_unknown", "f".repeat(64), new Date().toISOString()),
        false,
      );
    });

    test("stores and replaces the manifest", async () => {
      assert.deepEqual(await storage.projects.getManifest(projectId), { intents: [], scopes: [], updatedAt: null });
      const intent = { name: "a", title: "A", requiredScopes: ["x"], input: { type: "object" }, output: {} };
      await storage.projects.putManifest(projectId, {
        intents: [intent],
        scopes: ["x"],
        updatedAt: "2025-01-01T00:00:00.000Z",
      });
      await storage.projects.putManifest(projectId, {
        intents: [intent],
        scopes: ["x", "y"],
        updatedAt: "2025-01-02T00:00:00.000Z",
      });
      assert.deepEqual(await storage.projects.getManifest(projectId), {
        intents: [intent],
        scopes: ["x", "y"],
        updatedAt: "2025-01-02T00:00:00.000Z",
      });
    });

    test("lists violations newest first with filters and a total", async () => {
      const base = { userId: null, intent: null, message: null, metadata: { a: 1 } };
      const keyId = crypto.randomUUID();
      for (const [i, severity] of (["info", "warning", "severe"] as const).entries()) {
        await storage.violations.addViolation(projectId, {
          ...base,
          id: crypto.randomUUID(),
          keyId,
          kind: "K",
          severity,
          createdAt: `2025-01-0${i + 1}T00:00:00.000Z`,
        });
      }
      const all = await storage.violations.listViolations(projectId, { keyId, limit: 10, offset: 0 });
      assert.equal(all.total, 3);
      assert.deepEqual(all.violations.map((v) => v.severity), ["severe", "warning", "info"]);
      assert.deepEqual(all.violations[0].metadata, { a: 1 });
      const page = await storage.violations.listViolations(projectId, {
        keyId,
        since: "2025-01-02T00:00:00.000Z",
        severity: "warning",
        limit: 10,
        offset: 0,
      });
      assert.equal(page.total, 1);
      assert.equal(page.violations[0].createdAt, "2025-01-02T00:00:00.000Z");
    });

    test("inserts keys, claims agt_ ids for one user, finds by hash, revokes once", async () => {
      const agentId = `agt_${crypto.randomUUID()}`;
      const mine = await mintAgentKey("alice", { name: "k", scopes: ["a"], agentId });
      assert.equal(await storage.keys.insertKey(projectId, mine.record, "claim"), true);
      const again = await mintAgentKey("alice", { name: "k2", scopes: [], agentId });
      assert.equal(await storage.keys.insertKey(projectId, again.record, "claim"), true);
      const theirs = await mintAgentKey("bob", { name: "k", scopes: [], agentId });
      assert.equal(await storage.keys.insertKey(projectId, theirs.record, "claim"), false);
      assert.equal(await storage.keys.findKeyByHash(theirs.record.hash), null);

      assert.deepEqual(await storage.keys.findKeyByHash(mine.record.hash), { projectId, record: mine.record });
      const listed = (await storage.keys.listKeys(projectId, "alice")).map((k) => k.id);
      assert.deepEqual(listed.sort(), [mine.record.id, again.record.id].sort());
      const revokedAt = await storage.keys.revokeKey(projectId, mine.record.id, "2025-01-01T00:00:00.000Z", "tooling");
      assert.equal(revokedAt, "2025-01-01T00:00:00.000Z");
      assert.equal(
        await storage.keys.revokeKey(projectId, mine.record.id, "2026-01-01T00:00:00.000Z", "tooling"),
        revokedAt,
      );
      assert.equal(await storage.keys.revokeKey("prj_other", again.record.id, revokedAt, "tooling"), null);
    });

    test("records a key's use at most once a minute", async () => {
      const { record } = await mintAgentKey("carol", { name: "k", scopes: [], agentId: "carol" });
      await storage.keys.insertKey(projectId, record, "user");
      await storage.keys.touchKey(projectId, record.id, "2025-01-01T00:00:00.000Z");
      await storage.keys.touchKey(projectId, record.id, "2025-01-01T00:00:30.000Z");
      assert.equal((await storage.keys.findKeyByHash(record.hash))?.record.lastUsedAt, "2025-01-01T00:00:00.000Z");
      await storage.keys.touchKey(projectId, record.id, "2025-01-01T00:01:30.000Z");
      assert.equal((await storage.keys.findKeyByHash(record.hash))?.record.lastUsedAt, "2025-01-01T00:01:30.000Z");
    });

    test("mirrors a key idempotently and never reactivates a revoked one", async () => {
      const { record } = await mintAgentKey("dave", { name: "k", scopes: [], agentId: "dave" });
      assert.equal(await storage.keys.mirrorKey(projectId, record), "stored");
      assert.equal(await storage.keys.mirrorKey(projectId, record), "stored");
      const revoked = { ...record, revokedAt: "2025-01-01T00:00:00.000Z" };
      assert.equal(await storage.keys.mirrorKey(projectId, revoked), "revoked", "this mirror revoked the key");
      assert.equal(await storage.keys.mirrorKey(projectId, revoked), "stored", "a second mirror revokes nothing");
      assert.equal(await storage.keys.mirrorKey(projectId, { ...record, name: "renamed" }), "stored");
      const found = await storage.keys.findKeyByHash(record.hash);
      assert.equal(found?.record.revokedAt, "2025-01-01T00:00:00.000Z");
      assert.equal(found?.record.name, "renamed");
      const sameHash = { ...(await mintAgentKey("dave", { name: "x", scopes: [], agentId: "dave" })).record };
      assert.equal(await storage.keys.mirrorKey(projectId, { ...sameHash, hash: record.hash }), "hash_taken");
      assert.equal(await storage.keys.mirrorKey(projectId, { ...record, hash: sameHash.hash }), "hash_taken");
    });

    test("keeps key ids and hashes unique per project: another project's id or hash is stored as a fresh one", async () => {
      const other = (await createProject(storage, "Copier")).project.id;
      const { record } = await mintAgentKey("erin", { name: "k", scopes: [], agentId: "erin" });
      await storage.keys.insertKey(projectId, record, "user");
      const sameId = {
        ...(await mintAgentKey("erin", { name: "c", scopes: [], agentId: "erin" })).record,
        id: record.id,
      };
      assert.equal(await storage.keys.mirrorKey(other, sameId), "stored");
      const sameHash = { ...(await mintAgentKey("erin", { name: "c", scopes: [], agentId: "erin" })).record };
      assert.equal(await storage.keys.mirrorKey(other, { ...sameHash, hash: record.hash }), "stored");
      assert.deepEqual(
        (await storage.keys.listKeys(other, "erin")).map((k) => k.id).sort(),
        [record.id, sameHash.id].sort(),
      );
      assert.equal(
        await storage.keys.revokeKey(other, record.id, "2025-01-01T00:00:00.000Z", "tooling"),
        "2025-01-01T00:00:00.000Z",
      );
      assert.equal(
        (await storage.keys.listKeys(projectId, "erin"))[0].revokedAt,
        null,
        "the first project's key is untouched",
      );
      await storage.keys.touchKey(other, record.id, "2025-01-01T00:00:00.000Z");
      assert.equal((await storage.keys.findProjectKey(other, record.id))?.lastUsedAt, "2025-01-01T00:00:00.000Z");
      assert.equal((await storage.keys.findProjectKey(projectId, record.id))?.lastUsedAt, null);
      assert.deepEqual(await storage.keys.listRevocations(other, 0, 10).then((r) => r.map((x) => x.keyId)), [
        record.id,
      ]);
      assert.deepEqual(
        await storage.keys.listRevocations(projectId, 0, 10).then((r) => r.filter((x) => x.keyId === record.id)),
        [],
      );
    });

    test("authenticates a hash two projects hold as its first holder's key, active or revoked", async () => {
      const other = (await createProject(storage, "Late copier")).project.id;
      const { record } = await mintAgentKey("frank", { name: "k", scopes: [], agentId: "frank" });
      await storage.keys.insertKey(projectId, record, "user");
      const copy = { ...(await mintAgentKey("frank", { name: "c", scopes: [], agentId: "frank" })).record };
      assert.equal(await storage.keys.mirrorKey(other, { ...copy, hash: record.hash }), "stored");
      const first = { id: record.id, projectId, agentId: "frank", revokedAt: null, lastUsedAt: null };
      assert.deepEqual(await storage.keys.findKeyAuth(record.hash), first);
      assert.deepEqual(await storage.keys.findKeyByHash(record.hash), { projectId, record });
      await storage.keys.revokeKey(other, copy.id, "2025-01-01T00:00:00.000Z", "tooling");
      assert.deepEqual(await storage.keys.findKeyAuth(record.hash), first, "revoking the copy does not touch the key");
      await storage.keys.revokeKey(projectId, record.id, "2025-01-02T00:00:00.000Z", "tooling");
      const revoked = await storage.keys.findKeyAuth(record.hash);
      assert.deepEqual(revoked, { ...first, revokedAt: "2025-01-02T00:00:00.000Z" }, "no active copy takes over");
      const third = (await createProject(storage, "Even later")).project.id;
      assert.equal(await storage.keys.mirrorKey(third, { ...copy, hash: record.hash }), "stored");
      assert.deepEqual(await storage.keys.findKeyAuth(record.hash), revoked);
    });

    test("appends events in order, deduplicates by eventId, and lists one inbox", async () => {
      const at = new Date().toISOString();
      const results = await storage.inbox.appendEvents(projectId, [
        { eventId: "s1", type: "t", agentId: "inbox-a", payload: { n: 1 } },
        { eventId: "s2", type: "t", agentId: "inbox-b", payload: { n: 2 } },
        { eventId: "s1", type: "t", agentId: "inbox-a", payload: { n: 3 } },
      ], at);
      assert.deepEqual(results.map((r) => r.duplicate), [false, false, true]);
      assert.equal(results[2].inboxId, results[0].inboxId);
      assert.ok(results[1].inboxId > results[0].inboxId);
      const items = await storage.inbox.listInbox(projectId, "inbox-a", 0, 10, new Date().toISOString());
      assert.deepEqual(items.map((i) => [i.eventId, i.payload, i.deliveries]), [["s1", { n: 1 }, 1]]);
      assert.equal(
        (await storage.inbox.listInbox(projectId, "inbox-a", 0, 10, new Date().toISOString()))[0].deliveries,
        2,
      );
      assert.deepEqual(
        await storage.inbox.listInbox(projectId, "inbox-a", results[0].inboxId, 10, new Date().toISOString()),
        [],
      );
    });

    test("acknowledges once, then purges acknowledged items after the retention", async () => {
      const [r] = await storage.inbox.appendEvents(
        projectId,
        [{ eventId: "p1", type: "t", agentId: "p", payload: {} }],
        "x",
      );
      assert.equal(await storage.inbox.acknowledge(projectId, "other", [r.inboxId], "2025-01-01T00:00:00.000Z"), 0);
      assert.equal(await storage.inbox.acknowledge(projectId, "p", [r.inboxId], "2025-01-01T00:00:00.000Z"), 1);
      assert.equal(await storage.inbox.acknowledge(projectId, "p", [r.inboxId], "2025-01-01T00:00:00.000Z"), 0);
      assert.deepEqual(await storage.inbox.listInbox(projectId, "p", 0, 10, new Date().toISOString()), []);
      const [dup] = await storage.inbox.appendEvents(
        projectId,
        [{ eventId: "p1", type: "t", agentId: "p", payload: {} }],
        "x",
      );
      assert.equal(dup.duplicate, true);
      assert.equal(await storage.inbox.purgeAcknowledged("2024-12-31T00:00:00.000Z"), 0);
      assert.equal(await storage.inbox.purgeAcknowledged("2025-01-02T00:00:00.000Z"), 1);
      const [fresh] = await storage.inbox.appendEvents(
        projectId,
        [{ eventId: "p1", type: "t", agentId: "p", payload: {} }],
        "y",
      );
      assert.equal(fresh.duplicate, false);
      assert.ok(fresh.inboxId > r.inboxId, "inbox ids are never reused after a purge");
    });
  });
}

test("the remote backend really went over Hrana HTTP", () => {
  assert.ok(backends.remoteRequests() > 10);
});
