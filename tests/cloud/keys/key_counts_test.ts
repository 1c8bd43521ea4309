// A project's keys by state are kept by triggers (migration 10), so the overview and the keys list's total never
// count a million rows: the kept counts equal a real count after every kind of write.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, createClient } from "@libsql/client";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { revocationAudit } from "../../../cloud/keys/mod.ts";
import { keyRecord } from "../../fixtures/key_records.ts";

describe("the kept key counts", () => {
  let client: Client;
  let storage: CloudRepositories;
  before(async () => {
    client = createClient({ url: ":memory:" });
    storage = await openCloudStorage(client);
  });
  after(async () => {
    await storage.close();
    client.close();
  });

  async function counted(projectId: string): Promise<{ active: number; revoked: number }> {
    const rs = await client.execute({
      sql: `SELECT COALESCE(SUM(revoked_at IS NULL), 0) AS active, COALESCE(SUM(revoked_at IS NOT NULL), 0) AS revoked
            FROM cloud_keys WHERE project_id = ?`,
      args: [projectId],
    });
    return { active: Number(rs.rows[0].active), revoked: Number(rs.rows[0].revoked) };
  }

  test("equal a real count after mints, mirrors, revokes, bulk revokes and the project's deletion", async () => {
    const { project } = await createProject(storage, "A");
    const other = (await createProject(storage, "B")).project.id;
    const p = project.id;
    const check = async (expected: { active: number; revoked: number }) => {
      assert.deepEqual(await storage.keys.countKeys(p), expected);
      assert.deepEqual(await counted(p), expected);
      const page = await storage.keys.listProjectKeys(p, { status: "active", limit: 1, offset: 0 });
      assert.equal(page.total, expected.active);
      const all = await storage.keys.listProjectKeys(p, { limit: 1, offset: 0 });
      assert.equal(all.total, expected.active + expected.revoked);
    };
    await check({ active: 0, revoked: 0 });
    const [a, b, c] = [keyRecord("ann"), keyRecord("ann"), keyRecord("bea")];
    for (const k of [a, b, c]) await storage.keys.insertKey(p, k, "user");
    await storage.keys.insertKey(other, keyRecord("ann"), "user");
    await check({ active: 3, revoked: 0 });
    await storage.keys.mirrorKey(p, keyRecord("cy", { revokedAt: new Date().toISOString() }));
    await check({ active: 3, revoked: 1 });
    await storage.keys.mirrorKey(p, { ...c, revokedAt: new Date().toISOString() });
    await check({ active: 2, revoked: 2 });
    const at = new Date().toISOString();
    await storage.keys.revokeKey(p, c.id, at, "dashboard");
    await check({ active: 2, revoked: 2 });
    const audit = (id: string) => revocationAudit(p, id, "dashboard", { actor: "t", sourceAddress: null }, 0);
    await storage.keys.revokeUserKeys(p, "ann", at, "dashboard", audit, () => audit("ann"));
    await check({ active: 0, revoked: 4 });
    assert.deepEqual(await storage.keys.countKeys(other), { active: 1, revoked: 0 });
    await storage.projects.deleteProject(p, audit("project"));
    assert.deepEqual(await storage.keys.countKeys(p), { active: 0, revoked: 0 });
    const left = await client.execute({
      sql: "SELECT COUNT(*) AS n FROM cloud_key_counts WHERE project_id = ?",
      args: [p],
    });
    assert.equal(Number(left.rows[0].n), 0, "the project's row goes with it");
  });
});
