// `inbox dead-letters|redrive|replay --project P --agent A`: on the cloud's database, each redrive and replay audited
// with actor `cli`.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { runInboxCommand } from "../../../cloud/cli/inbox_commands.ts";
import type { CommandError } from "../../../cloud/cli/project_commands.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";

describe("inbox dead-letters|redrive|replay", () => {
  const dir = tempDir();
  const db = `file:${dir.file("inbox.db")}`;
  let storage: CloudRepositories;
  let projectId: string;
  const run = (args: string[]) => {
    const line = parseCommandLine(args);
    return runInboxCommand({ url: db }, line.words.slice(1), line);
  };
  before(async () => {
    storage = await openCloudStorage(db);
    projectId = (await createProject(storage, "A")).project.id;
    await storage.inbox.setMaxDeliveries(projectId, 1);
    const at = new Date().toISOString();
    const events = ["c-1", "c-2", "c-3"].map((eventId) => ({ eventId, type: "job", agentId: "cleo", payload: {} }));
    await storage.inbox.appendEvents(projectId, events, at);
    const leased = await storage.inbox.leaseInbox(projectId, "cleo", 0, 10, at, "9999-01-01T00:00:00.000Z", "t");
    await storage.inbox.acknowledgeLeases(projectId, "cleo", [leased[2].leaseId!], at);
    await storage.inbox.releaseLeases(projectId, "cleo", leased.slice(0, 2).map((i) => i.leaseId!), at, at, "boom");
  });
  after(async () => {
    await storage.close();
    dir.remove();
  });
  const flags = ["--project", "", "--agent", "cleo"];
  const args = (...words: string[]) => [...words, ...flags.map((f) => f === "" ? projectId : f)];

  test("dead-letters lists them; redrive puts the named ones back, then all; each audited", async () => {
    const listed = await run(args("inbox", "dead-letters"));
    const items = (listed.json as { items: { eventId: string; reason: string; inboxId: number }[] }).items;
    assert.deepEqual(items.map((i) => [i.eventId, i.reason]), [["c-1", "boom"], ["c-2", "boom"]]);
    assert.match(listed.text, /c-1 {2}job {2}1 {2}.* {2}boom/);
    const one = await run([...args("inbox", "redrive"), "--ids", String(items[0].inboxId)]);
    assert.deepEqual(one.json, { ok: true, redriven: 1 });
    assert.deepEqual((await run(args("inbox", "redrive"))).json, { ok: true, redriven: 1 });
    assert.equal((await run(args("inbox", "dead-letters"))).text, "No dead letters in cleo's inbox.");
    const audit = await storage.audit.listAudit({ action: "inbox.redrive", limit: 5, offset: 0 });
    assert.deepEqual(audit.entries.map((e) => [e.actor, e.detail]).reverse(), [
      ["cli", { agentId: "cleo", inboxIds: [items[0].inboxId] }],
      ["cli", { agentId: "cleo", inboxIds: "all" }],
    ]);
  });

  test("replay queues the acknowledged items of the window again", async () => {
    const out = await run([...args("inbox", "replay"), "--since", "2020-01-01"]);
    assert.deepEqual(out.json, { ok: true, replayed: 1 });
    const none = await run([...args("inbox", "replay"), "--since", "2020-01-01", "--until", "2020-01-02"]);
    assert.deepEqual(none.json, { ok: true, replayed: 0 });
    // An empty window changes nothing and records nothing.
    assert.equal((await storage.audit.listAudit({ action: "inbox.replay", limit: 5, offset: 0 })).total, 1);
  });

  test("refuses a bad command line, and an unknown project", async () => {
    const usage = (e: CommandError) => e.code === "USAGE";
    await assert.rejects(run(["inbox", "dead-letters", "--agent", "cleo"]), usage);
    await assert.rejects(run(args("inbox", "purge")), usage);
    await assert.rejects(run(args("inbox", "replay")), usage);
    await assert.rejects(run([...args("inbox", "replay"), "--since", "soon"]), usage);
    await assert.rejects(run([...args("inbox", "redrive"), "--ids", "1,x"]), usage);
    await assert.rejects(
      run(["inbox", "dead-letters", "--project", "prj_unknown", "--agent", "cleo"]),
      (e: CommandError) => e.code === "NOT_FOUND",
    );
  });
});
