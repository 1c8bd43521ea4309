// A node's cached agent-key auth across two storages on one file: another node's commits of events leave it cached
// (one read of the keys' version, whatever the number of keys), and a key stored, revoked, scheduled for revocation
// or deleted by the other node is seen on the next request.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { keyRecord } from "../../fixtures/key_records.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { twoNodesOnOneFile } from "../../fixtures/two_nodes.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-key-auth-cache-");
after(() => dir.remove());

const AT = "2026-01-01T00:00:00.000Z";
const PROJECT = "prj_01HZZZZZZZZZZZZZZZZZZZZZZ1";

describe("a node's cached agent keys, beside another node on the same file", () => {
  test("stay cached while the other node commits events, and follow its mints, revocations and schedules on the next request", async () => {
    const url = `file:${dir.file("cloud.db")}`;
    const nodes = await twoNodesOnOneFile(url);
    const { mine, other } = nodes;
    try {
      await other.projects.createProject({
        id: PROJECT,
        name: "p",
        secretHash: "a".repeat(64),
        createdAt: AT,
        secretRotatedAt: null,
      });
      const [one, two, three] = ["u1", "u2", "u3"].map((user) => keyRecord(user, { createdAt: AT }));
      assert.equal(await other.keys.insertKey(PROJECT, one, "user"), true);
      assert.equal(await other.keys.insertKey(PROJECT, two, "user"), true);
      await nextTurns(2);
      const states = async () =>
        (await Promise.all([one, two, three].map((k) => mine.keys.findKeyAuth(k.hash)))).map((found) =>
          found === null ? null : { revokedAt: found.revokedAt, revokesAt: found.revokesAt ?? null }
        );
      const active = { revokedAt: null, revokesAt: null };
      assert.deepEqual(await states(), [active, active, null]);

      for (let i = 0; i < 3; i++) {
        await other.inbox.appendEvents(PROJECT, [{ eventId: `e${i}`, type: "t", agentId: "a", payload: {} }], AT);
        await nextTurns(2); // the next request
        nodes.countFromZero();
        assert.deepEqual(await states(), [active, active, null]);
        assert.equal(nodes.statements(), 1, "one read of the keys' version, not one read of each key");
      }

      assert.equal(await other.keys.insertKey(PROJECT, three, "user"), true);
      await nextTurns(2);
      assert.deepEqual(await states(), [active, active, active], "a key stored there");

      const revokedAt = "2026-01-02T00:00:00.000Z";
      assert.equal(await other.keys.revokeKey(PROJECT, one.id, revokedAt, "tooling"), revokedAt);
      await nextTurns(2);
      assert.deepEqual(await states(), [{ revokedAt, revokesAt: null }, active, active], "a key revoked there");

      // A reroll there: the new key is stored and the old one's revocation scheduled.
      const next = keyRecord("u2", { createdAt: AT });
      const revokesAt = "2026-01-03T00:00:00.000Z";
      assert.equal(await other.keys.rerollKey(PROJECT, "u2", two.id, next, revokesAt, AT, []), true);
      await nextTurns(2);
      assert.deepEqual(await states(), [{ revokedAt, revokesAt: null }, { revokedAt: null, revokesAt }, active]);
      assert.deepEqual(
        await mine.keys.findKeyAuth(next.hash).then((found) => found?.id),
        next.id,
        "the rerolled key",
      );
    } finally {
      await nodes.close();
    }
  });
});
