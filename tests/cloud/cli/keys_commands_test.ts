// @slow: a subprocess
// `keys revoke --user USER --project PROJECT_ID`: every active key of the user, on the cloud's database, with a
// feed row and an audit entry per key (actor `cli`) and one for the action; the same as a real process.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cliCommand, finished, repoRoot } from "../../fixtures/subprocess.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { runKeysCommand } from "../../../cloud/cli/keys_commands.ts";
import type { CommandError } from "../../../cloud/cli/project_commands.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { keyRecord } from "../../fixtures/key_records.ts";

describe("keys revoke --user", () => {
  const dir = tempDir();
  const db = `file:${dir.file("keys.db")}`;
  let storage: CloudRepositories;
  let projectId: string;
  const run = (args: string[]) => {
    const line = parseCommandLine(args);
    return runKeysCommand({ url: db }, line.words.slice(1), line);
  };
  before(async () => {
    storage = await openCloudStorage(db);
    projectId = (await createProject(storage, "A")).project.id;
  });
  after(async () => {
    await storage.close();
    dir.remove();
  });

  test("revokes the user's active keys, with a feed row and an audit entry per key and one for the action", async () => {
    const [a, b, other] = [keyRecord("alice"), keyRecord("alice"), keyRecord("alicia")];
    for (const k of [a, b, other]) await storage.keys.insertKey(projectId, k, "user");
    const out = await run(["keys", "revoke", "--user", "alice", "--project", projectId]);
    assert.deepEqual(out.json, { ok: true, projectId, userId: "alice", revoked: 2, keyIds: [a.id, b.id].sort() });
    assert.equal(out.text, `Revoked 2 keys of alice in ${projectId}.`);
    const feed = await storage.keys.listRevocations(projectId, 0, 10);
    assert.deepEqual(feed.map((r) => [r.keyId, r.reason]).sort(), [[a.id, "tooling"], [b.id, "tooling"]].sort());
    const audit = await storage.audit.listAudit({ projectId, limit: 10, offset: 0 });
    assert.deepEqual(
      audit.entries.filter((e) => e.action.startsWith("key.")).map((e) => [e.actor, e.action, e.target]).sort(),
      [["cli", "key.revoke", a.id], ["cli", "key.revoke", b.id], ["cli", "key.revoke_all", "alice"]].sort(),
    );
    assert.equal((await storage.keys.findProjectKey(projectId, other.id))!.revokedAt, null);
    const again = await run(["keys", "revoke", "--user", "alice", "--project", projectId]);
    assert.equal(again.json.revoked, 0);
  });

  test("needs --user and --project, and a project that exists", async () => {
    await assert.rejects(run(["keys", "revoke", "--user", "alice"]), (e: CommandError) => e.code === "USAGE");
    await assert.rejects(run(["keys", "revoke", "--project", projectId]), (e: CommandError) => e.code === "USAGE");
    await assert.rejects(run(["keys", "list"]), (e: CommandError) => e.code === "USAGE");
    await assert.rejects(
      run(["keys", "revoke", "--user", "alice", "--project", "prj_unknown"]),
      (e: CommandError) => e.code === "NOT_FOUND",
    );
  });

  test("the command line runs it as a process and prints one JSON object", async () => {
    const k = keyRecord("bob");
    await storage.keys.insertKey(projectId, k, "user");
    const [cmd, ...rest] = cliCommand();
    const child = spawn(
      cmd,
      [...rest, "keys", "revoke", "--user", "bob", "--project", projectId, "--json", "--db", db],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const done = await finished(child);
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(JSON.parse(done.stdout), { ok: true, projectId, userId: "bob", revoked: 1, keyIds: [k.id] });
  });
});
