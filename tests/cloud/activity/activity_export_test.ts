// @slow: serves a test cloud on a socket and reads a 2,500-line export slowly
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { listen } from "../../fixtures/servers.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";
import { activityRecords } from "../../fixtures/activity_records.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import type { ActivityRecord } from "../../../core/contract/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { exportStream } from "../../../cloud/activity/activity_export.ts";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");
const COUNT = 2500;

describe("GET /v1/sdk/activity/export", () => {
  let t: TestCloud;
  let server: RunningServer;
  const records = activityRecords(COUNT, NOW, (i) => ({ keyId: `key_${i % 3}` }));
  before(async () => {
    t = await startTestCloud({ now: () => NOW });
    for (let at = 0; at < COUNT; at += 500) {
      const res = await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: records.slice(at, at + 500) } });
      assert.equal(res.status, 200);
    }
    server = await listen(t.cloud.handle);
  });
  after(async () => {
    await server.close();
    await t.close();
  });

  test("streams every record as one NDJSON line, oldest first, to a client that reads slowly", async () => {
    const res = await fetch(`${server.url}/v1/sdk/activity/export`, {
      headers: { authorization: `Bearer ${t.project.secret}`, "x-svc-project": t.project.id },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/x-ndjson");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      reads++;
      await nextTurns(20); // a slow reader: the server waits for each read
    }
    assert.ok(reads > 1, "the body arrived in parts");
    assert.ok(text.endsWith("\n"));
    const lines = text.slice(0, -1).split("\n");
    const parsed: ActivityRecord[] = lines.map((line) => JSON.parse(line));
    assert.deepEqual(parsed, records);
  });

  test("exports only since..until (since inclusive, until exclusive)", async () => {
    const since = records[100].at;
    const until = records[200].at;
    const res = await t.sdk("GET", `/v1/sdk/activity/export?since=${since}&until=${until}`);
    const ids = (res.body as string).trim().split("\n").map((line) => JSON.parse(line).id);
    assert.deepEqual(ids, records.slice(100, 200).map((r) => r.id));
  });

  test("an empty range is an empty body", async () => {
    const res = await t.sdk("GET", `/v1/sdk/activity/export?since=2030-01-01`);
    assert.equal(res.status, 200);
    assert.equal(res.body, null, "no line at all");
  });

  test("refuses a bad range with the VALIDATION_ERROR envelope", async () => {
    const res = await t.sdk("GET", "/v1/sdk/activity/export?since=soon");
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  });
});

describe("exportStream", () => {
  test("reads the next page only when the reader took the last (a slow reader holds one page)", async () => {
    const client = createClient({ url: ":memory:" });
    const storage = await openCloudStorage(client);
    const { project } = await createProject(storage, "Export");
    await storage.activity.addActivity(project.id, activityRecords(95, NOW));
    let pagesRead = 0;
    const counting = {
      exportActivity(...args: Parameters<typeof storage.activity.exportActivity>) {
        pagesRead++;
        return storage.activity.exportActivity(...args);
      },
    };
    const reader = exportStream(counting, project.id, {}, undefined, 10).getReader();
    assert.equal(pagesRead, 0, "nothing is read before the client asks");
    await reader.read();
    await nextTurns(50);
    assert.equal(pagesRead, 1, "one page for one read, however long the reader waits");
    let lines = 10;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lines += new TextDecoder().decode(value).split("\n").length - 1;
    }
    assert.equal(lines, 95);
    assert.equal(pagesRead, 10);
    await storage.close();
    client.close();
  });
});
