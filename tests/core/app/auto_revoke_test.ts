// Local mode's auto-revoke policy (createSvc({ autoRevoke })), on real libSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import type { Violation } from "../../../mod.ts";

describe("createSvc({ autoRevoke }) in local mode", () => {
  test("revokes a key at the threshold and not one violation before, recording AUTO_REVOKED", async () => {
    const seen: Violation[] = [];
    const svc = notesSvc({ autoRevoke: { threshold: 3, windowMinutes: 10 }, onViolation: (v) => void seen.push(v) });
    try {
      const { key, id } = await mint(svc, "alice", ["notes:read"]);
      for (let i = 0; i < 2; i++) assert.equal((await run(svc, key, "notes.create", { title: "x" })).status, 403);
      assert.equal((await run(svc, key, "no.such.intent")).status, 404, "UNKNOWN_INTENT does not count by default");
      await svc.violations(); // flushes the queue and the policy
      assert.equal((await run(svc, key, "notes.list")).status, 200, "two counted violations: still active");
      assert.equal((await run(svc, key, "notes.create", { title: "x" })).status, 403);
      await svc.violations();
      assert.equal((await run(svc, key, "notes.list")).status, 401, "the third revoked it");
      const auto = (await svc.violations({ keyId: id })).filter((v) => v.kind === "AUTO_REVOKED");
      assert.equal(auto.length, 1);
      assert.equal(auto[0].severity, "severe");
      assert.equal(auto[0].metadata.count, 3);
      assert.deepEqual(auto[0].metadata.policy, {
        kinds: ["FORBIDDEN_SCOPE"],
        severities: ["severe"],
        threshold: 3,
        windowMinutes: 10,
      });
      assert.ok(seen.some((v) => v.kind === "AUTO_REVOKED"), "onViolation hears of it");
      const listed =
        await (await svc.handle(new Request("http://app.test/svc/keys", { headers: { "x-user": "alice" } })))
          .json();
      assert.ok(listed.keys[0].revokedAt);
    } finally {
      await svc.close();
    }
  });

  test("is off by default and refused in cloud mode with a clear error", async () => {
    const svc = notesSvc();
    try {
      const { key } = await mint(svc, "bob", ["notes:read"]);
      for (let i = 0; i < 5; i++) await run(svc, key, "notes.create", { title: "x" });
      await svc.violations();
      assert.equal((await run(svc, key, "notes.list")).status, 200);
    } finally {
      await svc.close();
    }
    assert.throws(
      () =>
        notesSvc({
          mode: "cloud",
          cloud: { endpoint: "http://127.0.0.1:9", projectId: "prj_x", sdkSecret: "svcs_x" },
          autoRevoke: { threshold: 1, windowMinutes: 1 },
        }),
      /cloud mode set the project's policy/,
    );
  });
});
