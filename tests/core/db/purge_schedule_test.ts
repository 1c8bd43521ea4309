// One schedule for every purge, the app's and the cloud's: at once, then every
// interval, one at a time, on a timer that never keeps the process running.
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { schedulePurge } from "../../../core/db/purge_schedule.ts";
import { finished, repoRoot, start } from "../../fixtures/subprocess.ts";

const script = fileURLToPath(new URL("../../fixtures/purge_schedule_process.ts", import.meta.url));

test("a process with only an hourly purge scheduled exits after the first pass", async () => {
  const command = "Deno" in globalThis ? [process.execPath, "run", "-A", script] : [process.execPath, script];
  const child = start(command, repoRoot);
  // An hour's timer that held the process would hang it: kill it past a generous bound, and fail.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const { code, stdout, stderr } = await finished(child);
  clearTimeout(deadline);
  assert.equal(stdout, "purged\n", stderr);
  assert.equal(code, 0, "the process ended by itself, not killed");
});

test("purges at once, joins a purge under way, and close() waits for it and stops the timer", async () => {
  let calls = 0;
  let finish = () => {};
  const schedule = schedulePurge(() => {
    calls++;
    return new Promise<void>((resolve) => finish = resolve);
  }, 5);
  assert.equal(calls, 1, "the first pass starts at once");
  const joined = schedule.purge();
  const closed = schedule.close();
  let done = false;
  closed.then(() => done = true);
  await new Promise((resolve) => setTimeout(resolve, 20)); // several intervals pass while the first pass runs
  assert.equal(calls, 1, "no second pass while one is under way, and none once closed");
  assert.equal(done, false, "close() waits for the pass under way");
  finish();
  await Promise.all([joined, closed]);
  assert.equal(calls, 1);
});
