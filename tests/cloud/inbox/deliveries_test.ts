// Delivery counts: re-polling the same items counts each delivery but writes them at most once a second,
// so polling from cursor 0 again and again costs reads, not a write per item per request.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { openDatabase } from "../../../core/db/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-deliveries-");
after(() => dir.remove());

test("re-polling from cursor 0 counts every delivery without a write per poll, and close() writes the counts", async () => {
  const url = `file:${dir.file("deliveries.db")}`;
  const storage = await openCloudStorage(url);
  const observer = await openDatabase(url);
  const { project } = await createProject(storage, "Deliveries");
  const events = Array.from({ length: 200 }, (_, i) => ({ eventId: `e${i}`, type: "t", agentId: "a", payload: {} }));
  await storage.inbox.appendEvents(project.id, events, new Date().toISOString());
  await nextTurns(2);
  const before = observer.dataVersion();
  let last = 0;
  for (let poll = 1; poll <= 20; poll++) {
    const items = await storage.inbox.listInbox(project.id, "a", 0, 200, new Date().toISOString());
    assert.equal(items.length, 200);
    assert.ok(items.every((i) => i.deliveries === poll), `poll ${poll} reports ${poll} deliveries`);
    last = items[0].deliveries;
  }
  await nextTurns(2);
  assert.equal(observer.dataVersion(), before, "20 polls of 200 items committed nothing yet");
  await storage.close();
  const stored = await observer.execute("SELECT MIN(deliveries) AS lo, MAX(deliveries) AS hi FROM cloud_events");
  assert.deepEqual({ ...stored.rows[0] }, { lo: last, hi: last });
  observer.close();
});
