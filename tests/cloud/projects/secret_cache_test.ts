// A node's cached project secrets (the SDK check) across two storages on one file: another node's commits of events
// leave them cached (one read of the projects' version, whatever the number of projects), and a project created,
// rotated or deleted by the other node is seen on the next request.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ProjectRecord } from "../../../cloud/projects/mod.ts";
import type { AuditEntryInput } from "../../../cloud/audit/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { twoNodesOnOneFile } from "../../fixtures/two_nodes.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-secret-cache-");
after(() => dir.remove());

const AT = "2026-01-01T00:00:00.000Z";
const project = (id: string, secretHash: string): ProjectRecord => ({
  id,
  name: id,
  secretHash,
  createdAt: AT,
  secretRotatedAt: null,
});
const P1 = "prj_01HZZZZZZZZZZZZZZZZZZZZZZ1";
const P2 = "prj_01HZZZZZZZZZZZZZZZZZZZZZZ2";
const P3 = "prj_01HZZZZZZZZZZZZZZZZZZZZZZ3";
const audit: AuditEntryInput = {
  projectId: null,
  actor: "cli",
  action: "project.delete",
  target: P2,
  detail: {},
  sourceAddress: null,
  createdAt: AT,
};

describe("a node's cached project secrets, beside another node on the same file", () => {
  test("stay cached while the other node commits events, and follow its creations, rotations and deletions on the next request", async () => {
    const url = `file:${dir.file("cloud.db")}`;
    const nodes = await twoNodesOnOneFile(url);
    const { mine, other } = nodes;
    try {
      await other.projects.createProject(project(P1, "a".repeat(64)));
      await other.projects.createProject(project(P2, "b".repeat(64)));
      await nextTurns(2);
      const hashes = () => Promise.all([P1, P2, P3].map((id) => mine.projects.projectSecretHash(id)));
      assert.deepEqual(await hashes(), ["a".repeat(64), "b".repeat(64), null]);

      for (let i = 0; i < 3; i++) {
        await other.inbox.appendEvents(P1, [{ eventId: `e${i}`, type: "t", agentId: "a", payload: {} }], AT);
        await nextTurns(2); // the next request
        nodes.countFromZero();
        assert.deepEqual(await hashes(), ["a".repeat(64), "b".repeat(64), null]);
        assert.equal(nodes.statements(), 1, "one read of the projects' version, not one read of each secret");
      }

      await other.projects.createProject(project(P3, "c".repeat(64)));
      await nextTurns(2);
      assert.deepEqual(await hashes(), ["a".repeat(64), "b".repeat(64), "c".repeat(64)], "a project created there");

      assert.equal(await other.projects.rotateProjectSecret(P1, "d".repeat(64), AT), true);
      await nextTurns(2);
      assert.deepEqual(await hashes(), ["d".repeat(64), "b".repeat(64), "c".repeat(64)], "a secret rotated there");

      assert.equal(await other.projects.deleteProject(P2, audit), true);
      await nextTurns(2);
      assert.deepEqual(await hashes(), ["d".repeat(64), null, "c".repeat(64)], "a project deleted there");
    } finally {
      await nodes.close();
    }
  });
});
