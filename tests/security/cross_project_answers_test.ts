// Issue 13, finding 12: the hybrid mirror answers a project the same whatever
// other projects hold. Project B mirroring a key id or a hash that project A
// holds gets the answer of a fresh record, so B cannot learn that they exist;
// A's record is untouched.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Project, startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";

function record(hash: string, userId = "u1"): Record<string, unknown> {
  return {
    userId,
    name: "k",
    scopes: [],
    agentId: userId,
    hash,
    start: "svc_live_abc",
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
}

describe("the hybrid mirror across projects", () => {
  let t: TestCloud;
  let b: Project;
  const idA = crypto.randomUUID();
  const hashA = "a".repeat(64);
  before(async () => {
    t = await startTestCloud();
    b = await t.newProject("b");
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${idA}`, { body: record(hashA) })).status, 200);
  });
  after(() => t.close());

  async function mirrorAsB(id: string, hash: string): Promise<{ status: number; body: unknown }> {
    const res = await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body: record(hash, "u2"), as: b });
    return { status: res.status, body: res.body };
  }

  test("answers another project's key id as it answers a fresh one", async () => {
    const fresh = await mirrorAsB(crypto.randomUUID(), "b".repeat(64));
    assert.deepEqual(await mirrorAsB(idA, "c".repeat(64)), fresh);
  });

  test("answers another project's hash as it answers a fresh one", async () => {
    const fresh = await mirrorAsB(crypto.randomUUID(), "d".repeat(64));
    assert.deepEqual(await mirrorAsB(crypto.randomUUID(), hashA), fresh);
  });

  test("leaves the other project's record as it was", async () => {
    const [key] = (await t.sdk("GET", "/v1/sdk/keys?userId=u1")).body.keys;
    assert.equal(key.id, idA);
    assert.equal(key.revokedAt, null);
  });

  test("still refuses a project's own record changing its hash", async () => {
    const id = crypto.randomUUID();
    assert.equal((await mirrorAsB(id, "e".repeat(64))).status, 200);
    const changed = await mirrorAsB(id, "f".repeat(64));
    assert.equal(changed.status, 400);
  });
});
