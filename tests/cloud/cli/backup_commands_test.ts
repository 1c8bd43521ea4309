// @slow: real cloud processes
// `backup --to FILE` copies a live, serving database while writes go on; `restore --from FILE --db URL` checks the
// copy and installs it, and a cloud started on the restored file serves the same project and keys. Broken, foreign
// and newer-than-known backups are refused, and nothing is installed.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { cliCommand, repoRoot, run } from "../../fixtures/subprocess.ts";
import { createProjectCli, mintKeyVia, request, sdkHeaders, startCloudProcess } from "../../fixtures/cloud_process.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { openDatabase } from "../../../core/db/mod.ts";
import { CLOUD_MIGRATIONS_TABLE } from "../../../cloud/database/mod.ts";

const cli = (args: string[]) => run([...cliCommand(), ...args, "--json"], repoRoot);

describe("backup and restore", () => {
  const dir = tempDir();
  after(() => dir.remove());

  test("a backup of a live database, restored elsewhere, serves the same project and keys", async () => {
    const live = `file:${dir.file("live.db")}`;
    const project = await createProjectCli(live);
    const cloud = await startCloudProcess(live);
    try {
      const key = await mintKeyVia(cloud.url, project, "alice");
      // Writes go on while the backup is taken.
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing && i < 500; i++) {
          await request(cloud.url, "POST", "/v1/events", sdkHeaders(project), {
            eventId: `e${i}`,
            type: "t",
            agentId: "alice",
            payload: {},
          });
        }
      })();
      const backedUp = await cli(["backup", "--to", dir.file("nightly.db"), "--db", live]);
      writing = false;
      await writer;
      assert.equal(backedUp.code, 0, backedUp.stderr);
      const report = JSON.parse(backedUp.stdout);
      assert.equal(report.ok, true);
      assert.ok(report.bytes > 0);
      assert.ok(report.schemaVersion >= 1);

      const restoredUrl = `file:${dir.file("restored.db")}`;
      const restored = await cli(["restore", "--from", dir.file("nightly.db"), "--db", restoredUrl]);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(JSON.parse(restored.stdout).schemaVersion, report.schemaVersion);

      const second = await startCloudProcess(restoredUrl);
      try {
        const verified = await request(second.url, "POST", "/v1/sdk/keys/verify", sdkHeaders(project), { key });
        assert.equal(verified.status, 200);
        assert.equal(verified.body.valid, true);
        assert.equal(verified.body.key.userId, "alice");
      } finally {
        second.child.kill("SIGKILL");
        await second.done;
      }
    } finally {
      cloud.child.kill("SIGKILL");
      await cloud.done;
    }
  });

  test("backup refuses an existing target and a remote database, naming the fix", async () => {
    const live = `file:${dir.file("refusals.db")}`;
    await createProjectCli(live);
    writeFileSync(dir.file("taken.db"), "x");
    const taken = await cli(["backup", "--to", dir.file("taken.db"), "--db", live]);
    assert.equal(taken.code, 1);
    assert.equal(JSON.parse(taken.stdout).error.code, "EXISTS");
    const remote = await cli(["backup", "--to", dir.file("remote.db"), "--db", "http://127.0.0.1:9/db"]);
    assert.equal(remote.code, 2); // a usage error
    assert.match(JSON.parse(remote.stdout).error.message, /file: database/);
    const missing = await cli(["backup", "--db", live]);
    assert.equal(JSON.parse(missing.stdout).error.code, "USAGE");
  });

  test("restore refuses a broken file, a database that is not the cloud's and a newer schema, installing nothing", async () => {
    const target = dir.file("target.db");
    writeFileSync(dir.file("garbage.db"), "not a database at all, not even close ".repeat(200));
    const garbage = await cli(["restore", "--from", dir.file("garbage.db"), "--db", `file:${target}`]);
    assert.equal(garbage.code, 1);
    assert.equal(JSON.parse(garbage.stdout).error.code, "CORRUPT");

    const foreign = await openDatabase(`file:${dir.file("foreign.db")}`);
    await foreign.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)");
    foreign.close();
    const notOurs = await cli(["restore", "--from", dir.file("foreign.db"), "--db", `file:${target}`]);
    assert.equal(JSON.parse(notOurs.stdout).error.code, "CORRUPT");

    const newer = `file:${dir.file("newer.db")}`;
    await createProjectCli(newer);
    const db = await openDatabase(newer);
    await db.execute({
      sql: `INSERT INTO ${CLOUD_MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, 'from the future', ?)`,
      args: [100_000, new Date(0).toISOString()],
    });
    db.close();
    const tooNew = await cli(["restore", "--from", dir.file("newer.db"), "--db", `file:${target}`]);
    assert.equal(JSON.parse(tooNew.stdout).error.code, "SCHEMA_TOO_NEW");
    assert.equal(existsSync(target), false);
  });

  test("restore replaces an existing database only with --force", async () => {
    const source = `file:${dir.file("source.db")}`;
    const project = await createProjectCli(source);
    assert.equal((await cli(["backup", "--to", dir.file("copy.db"), "--db", source])).code, 0);
    const existing = `file:${dir.file("existing.db")}`;
    await createProjectCli(existing);
    const refused = await cli(["restore", "--from", dir.file("copy.db"), "--db", existing]);
    assert.equal(JSON.parse(refused.stdout).error.code, "EXISTS");
    const forced = await cli(["restore", "--from", dir.file("copy.db"), "--db", existing, "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    const listed = await cli(["project", "list", "--db", existing]);
    assert.deepEqual(JSON.parse(listed.stdout).projects.map((p: { projectId: string }) => p.projectId), [
      project.projectId,
    ]);
  });
});
