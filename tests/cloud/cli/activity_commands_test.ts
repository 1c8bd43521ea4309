// @slow: runs `activity export` and `activity list` as real subprocesses on a file database
// `activity list` and `activity export`: a project's activity on the command line, as /v1 and the dashboard see it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { cliCommand, repoRoot, run } from "../../fixtures/subprocess.ts";
import { activityRecords } from "../../fixtures/activity_records.ts";
import { runActivityList } from "../../../cloud/cli/activity_commands.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";
import { type CloudRepositories, openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");

describe("svc-cloud activity", () => {
  const dir = tempDir();
  const db = `file:${dir.file("activity.db")}`;
  let storage: CloudRepositories;
  let projectId: string;
  let otherId: string;
  const records = activityRecords(30, NOW, (i) => ({ keyId: `key_${i % 2}`, userId: i < 10 ? "ann" : "bob" }));
  before(async () => {
    storage = await openCloudStorage(db);
    projectId = (await createProject(storage, "A")).project.id;
    otherId = (await createProject(storage, "B")).project.id;
    await storage.activity.addActivity(projectId, records);
  });
  after(async () => {
    await storage.close();
    dir.remove();
  });

  test("list filters by key and user, newest first, and names the next page's cursor", async () => {
    const list = (...args: string[]) =>
      runActivityList({ url: db }, parseCommandLine(["activity", "list", "--project", projectId, ...args]));
    const first = await list("--key", "key_0", "--user", "bob", "--limit", "5");
    const expected = records.filter((r) => r.keyId === "key_0" && r.userId === "bob").reverse();
    const page = first.json as { activity: { id: string }[]; nextCursor: string };
    assert.deepEqual(page.activity.map((r) => r.id), expected.slice(0, 5).map((r) => r.id));
    assert.match(first.text, new RegExp(`More: --cursor ${page.nextCursor}$`));
    assert.match(first.text, /^2026-11-20T\d\d:\d\d:\d\d\.000Z {2}key_0 {2}bob {2}notes\.list {2}http {2}ok {2}200/);
    const second = await list("--key", "key_0", "--user", "bob", "--limit", "5", "--cursor", page.nextCursor);
    assert.deepEqual(
      (second.json as { activity: { id: string }[] }).activity.map((r) => r.id),
      expected.slice(5).map((r) => r.id),
    );
    const other = await runActivityList({ url: db }, parseCommandLine(["activity", "list", "--project", otherId]));
    assert.equal(other.text, "No activity.");
  });

  test("list refuses a bad flag and an unknown project", async () => {
    await assert.rejects(
      runActivityList({ url: db }, parseCommandLine(["activity", "list", "--project", projectId, "--since", "x"])),
      /--since/,
    );
    await assert.rejects(runActivityList({ url: db }, parseCommandLine(["activity", "list"])), /--project/);
    await assert.rejects(
      runActivityList({ url: db }, parseCommandLine(["activity", "list", "--project", "nope"])),
      /No project nope/,
    );
  });

  test("export writes NDJSON on stdout, oldest first, within --since and --until", async () => {
    const since = records[5].at;
    const until = records[25].at;
    const out = await run(
      [...cliCommand(), "activity", "export", "--project", projectId, "--since", since, "--until", until, "--db", db],
      repoRoot,
    );
    assert.equal(out.code, 0, out.stderr);
    assert.ok(out.stdout.endsWith("\n"));
    const lines = out.stdout.slice(0, -1).split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines, records.slice(5, 25));
  });

  test("list --json prints one JSON object", async () => {
    const out = await run(
      [...cliCommand(), "activity", "list", "--project", projectId, "--limit", "2", "--json", "--db", db],
      repoRoot,
    );
    assert.equal(out.code, 0, out.stderr);
    const page = JSON.parse(out.stdout);
    assert.deepEqual(page.activity.map((r: { id: string }) => r.id), [records[29].id, records[28].id]);
    assert.equal(typeof page.nextCursor, "string");
  });
});
