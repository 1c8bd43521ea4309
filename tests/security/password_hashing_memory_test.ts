// @slow: a serve subprocess (Node) flooded with password hashes, its peak memory read from /proc
// Password hashing cannot exhaust the cloud's memory: a real `serve` process
// of Node gets 32 concurrent setup posts with a made-up token and 32
// concurrent sign-ins, and its peak resident memory (VmHWM, /proc) must grow
// by less than a bound. Before the fix, each post ran a 32 MiB scrypt at
// once: 32 setup posts alone raised the peak by about 968 MiB.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveCloud, type ServedCloud } from "../cloud/dashboard/cloud_subprocess.ts";
import { formClient } from "../cloud/dashboard/form_client.ts";

const CONCURRENT = 32;
/** The most the peak may grow by: a few hashes at a time (2 × 32 MiB) and their requests, far under 32 × 32 MiB. */
const PEAK_GROWTH_BOUND_MIB = 256;

function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

describe("password hashing under a flood", { skip: !existsSync("/proc/self/status") }, () => {
  let dir: string;
  let cloud: ServedCloud;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-hash-flood-"));
    cloud = await serveCloud("node", `file:${join(dir, "svc.db")}`);
  });
  after(async () => {
    await cloud?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("concurrent setup posts and sign-ins keep the cloud's peak memory bounded", async () => {
    const handle = (req: Request): Promise<Response> => fetch(req, { redirect: "manual" });
    // Warm up: one page and one sign-in, so the baseline includes the code paths.
    const warm = formClient(handle, cloud.url);
    await warm.get("/dashboard/sign-in");
    await warm.post("/dashboard/sign-in", { email: "warm@example.com", password: "not the password at all" });
    const before = peakMiB(cloud.pid);
    const clients = await Promise.all(Array.from({ length: CONCURRENT * 2 }, async () => {
      const client = formClient(handle, cloud.url);
      await client.get("/dashboard/sign-in");
      return client;
    }));
    const answers = await Promise.all(
      clients.map((client, i) =>
        i < CONCURRENT
          ? client.post("/dashboard/setup?token=svcu_madeup", { email: `a${i}@example.com`, password: "x".repeat(200) })
          : client.post("/dashboard/sign-in", { email: `b${i}@example.com`, password: "y".repeat(200) })
      ),
    );
    const growth = peakMiB(cloud.pid) - before;
    for (const [i, answer] of answers.entries()) {
      const expected = i < CONCURRENT ? [410] : [401, 429, 503];
      assert.ok(expected.includes(answer.status), `answer ${i}: ${answer.status}`);
    }
    console.log(`peak growth: ${growth.toFixed(0)} MiB`);
    assert.ok(growth < PEAK_GROWTH_BOUND_MIB, `the peak grew by ${growth.toFixed(0)} MiB`);
    // The feature still works: the real setup link creates the first admin.
    const admin = formClient(handle, cloud.url);
    const link = new URL(cloud.setupLink);
    assert.equal((await admin.get(link.pathname + link.search)).status, 200);
    const created = await admin.post(link.pathname + link.search, {
      email: "first@example.com",
      password: "correct horse battery staple",
    });
    assert.equal(created.status, 303);
  });
});
