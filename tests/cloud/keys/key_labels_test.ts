// Naming keys for a page in one read: the audit log's and the violations list's rows, on real libSQL.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { keyLabelId } from "../../../cloud/keys/mod.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

describe("keyLabels()", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("names each existing key of the right project, once per key, and skips unknown ids", async () => {
    const other = await t.newProject("other");
    const ann = await t.mintKey("ann", { name: "billing-agent" });
    const bob = await t.mintKey("bob", { name: "support-agent" }, other);
    const labels = await t.storage.keys.keyLabels([
      { projectId: t.project.id, keyId: ann.id },
      { projectId: t.project.id, keyId: ann.id },
      { projectId: other.id, keyId: bob.id },
      { projectId: t.project.id, keyId: bob.id },
      { projectId: t.project.id, keyId: "no-such-key" },
    ]);
    assert.deepEqual(
      [...labels.entries()].sort(),
      [
        [keyLabelId(t.project.id, ann.id), { name: "billing-agent", userId: "ann" }],
        [keyLabelId(other.id, bob.id), { name: "support-agent", userId: "bob" }],
      ].sort(),
    );
  });

  test("answers an empty map for no keys, and reads more keys than fit in one statement", async () => {
    assert.equal((await t.storage.keys.keyLabels([])).size, 0);
    const minted = [];
    for (let i = 0; i < 3; i++) minted.push(await t.mintKey(`user-${i}`, { name: `agent-${i}` }));
    const refs = [
      ...Array.from({ length: 600 }, (_, i) => ({ projectId: t.project.id, keyId: `missing-${i}` })),
      ...minted.map((k) => ({ projectId: t.project.id, keyId: k.id })),
    ];
    const labels = await t.storage.keys.keyLabels(refs);
    assert.deepEqual(minted.map((k) => labels.get(keyLabelId(t.project.id, k.id))?.name), [
      "agent-0",
      "agent-1",
      "agent-2",
    ]);
  });
});
