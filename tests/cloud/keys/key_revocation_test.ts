import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { revocationAudit } from "../../../cloud/keys/key_revocation.ts";
import type { MirrorReason } from "../../../cloud/keys/key_repository.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { keyRecord } from "../../fixtures/key_records.ts";

const by = { actor: "ops@example.com", sourceAddress: "192.0.2.1" };

async function revokeEntries(storage: CloudRepositories, projectId: string, keyId: string): Promise<unknown[]> {
  const page = await storage.audit.listAudit({ projectId, action: "key.revoke", limit: 100, offset: 0 });
  return page.entries.filter((e) => e.target === keyId).map((e) => e.detail);
}

describe("a key's revocation and its audit entry, one transaction", () => {
  let storage: CloudRepositories;
  let projectId: string;
  let otherId: string;
  before(async () => {
    storage = await openCloudStorage(":memory:");
    projectId = (await createProject(storage, "A")).project.id;
    otherId = (await createProject(storage, "B")).project.id;
  });
  after(() => storage.close());

  test("revokeKey writes the entry with the first revoke only, and none for another project's key", async () => {
    const key = keyRecord("ann");
    await storage.keys.insertKey(projectId, key, "user");
    const at = new Date().toISOString();
    const audit = revocationAudit(projectId, key.id, "dashboard", by, Date.parse(at));
    assert.equal(await storage.keys.revokeKey(otherId, key.id, at, "dashboard", audit), null);
    assert.deepEqual(await revokeEntries(storage, projectId, key.id), []);
    assert.equal(await storage.keys.revokeKey(projectId, key.id, at, "dashboard", audit), at);
    assert.deepEqual(await revokeEntries(storage, projectId, key.id), [{ reason: "dashboard" }]);
    const later = new Date(Date.parse(at) + 1000).toISOString();
    assert.equal(
      await storage.keys.revokeKey(projectId, key.id, later, "dashboard", audit),
      at,
      "keeps the first time",
    );
    assert.equal((await revokeEntries(storage, projectId, key.id)).length, 1, "a repeat adds no entry");
  });

  test("mirrorKey writes the entry when the mirror revokes the key, and never again", async () => {
    const key = keyRecord("bea");
    assert.equal(
      await storage.keys.mirrorKey(projectId, key, {
        revoked: (reason) => revocationAudit(projectId, key.id, reason, by, 0),
      }),
      "stored",
    );
    assert.deepEqual(await revokeEntries(storage, projectId, key.id), []);
    const revoked = { ...key, revokedAt: new Date().toISOString() };
    const audit = { revoked: (reason: MirrorReason) => revocationAudit(projectId, key.id, reason, by, Date.now()) };
    assert.equal(await storage.keys.mirrorKey(projectId, revoked, audit), "revoked");
    assert.deepEqual(await revokeEntries(storage, projectId, key.id), [{ reason: "app" }]);
    assert.equal(await storage.keys.mirrorKey(projectId, revoked, audit), "stored");
    assert.equal((await revokeEntries(storage, projectId, key.id)).length, 1);
  });
});
