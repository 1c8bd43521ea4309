// A single event's storage (appendOne): a new event answered from its insert, a duplicate from the row holding its
// eventId, and an event whose holding row is deleted between the conflict and that read written again.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { eventStorage } from "../../../cloud/inbox/mod.ts";
import { createGroupCommit, type Executor, openDatabase } from "../../../core/db/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

const HELD = "SELECT inbox_id, agent_id FROM cloud_events WHERE project_id = ? AND event_id = ?";

describe("eventStorage: one event", () => {
  const dir = tempDir("svc-events-");
  const url = `file:${dir.file("cloud.db")}`;
  let projectId: string;
  let db: Executor;
  /** Runs before the read of the row holding an eventId (once each), as another request's purge would. */
  const beforeHeldRead: (() => Promise<unknown>)[] = [];
  let events: ReturnType<typeof eventStorage>;

  before(async () => {
    const storage = await openCloudStorage(url);
    projectId = (await createProject(storage, "Events")).project.id;
    storage.close();
    db = await openDatabase(url);
    const purging: Executor = {
      ...db,
      engine: db.engine,
      batch: (statements, mode) => db.batch(statements, mode),
      transaction: (work, mode) => db.transaction(work, mode),
      dataVersion: () => db.dataVersion(),
      close: () => db.close(),
      async execute(statement) {
        if (typeof statement !== "string" && statement.sql.startsWith(HELD)) await beforeHeldRead.shift()?.();
        return db.execute(statement);
      },
    };
    events = eventStorage(purging, createGroupCommit(purging));
  });
  after(() => {
    db.close();
    dir.remove();
  });

  const one = (eventId: string, agentId = "agent-1") =>
    events.appendEvents(projectId, [{ eventId, type: "t", agentId, payload: { eventId } }], "2026-01-01T00:00:00.000Z");
  const stored = async (eventId: string) =>
    (await db.execute({ sql: "SELECT inbox_id FROM cloud_events WHERE event_id = ?", args: [eventId] })).rows
      .map((row) => Number(row.inbox_id));

  test("a new event is answered with its row's inbox id; the same eventId again is its duplicate", async () => {
    const [fresh] = await one("e-1");
    assert.deepEqual(fresh, {
      eventId: "e-1",
      inboxId: (await stored("e-1"))[0],
      agentId: "agent-1",
      duplicate: false,
    });
    const [again] = await one("e-1", "agent-2");
    assert.deepEqual(again, { ...fresh, duplicate: true }, "the duplicate names the first event's inbox and agent");
    assert.deepEqual(await stored("e-1"), [fresh.inboxId], "nothing new was stored");
  });

  test("a duplicate whose holding row is deleted before it is read is written again, as a new event", async () => {
    const [first] = await one("e-gone");
    beforeHeldRead.push(() => db.execute({ sql: "DELETE FROM cloud_events WHERE event_id = ?", args: ["e-gone"] }));
    const [again] = await one("e-gone");
    assert.equal(beforeHeldRead.length, 0, "the row was deleted between the conflict and its read");
    assert.equal(again.duplicate, false);
    assert.ok(again.inboxId > first.inboxId, "a new inbox id");
    assert.deepEqual(await stored("e-gone"), [again.inboxId]);
  });
});
