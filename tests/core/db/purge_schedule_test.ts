// @slow: subprocesses (a process that must exit by itself)
// One schedule for every purge, the app's and the cloud's: at once, then every
// interval, one at a time, on a timer that never keeps the process running.
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { schedulePurge } from "../../../core/db/mod.ts";
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

test("purges at once, joins a purge under way, runs on each interval, and close() waits for it and stops the timer", async () => {
  let calls = 0;
  let finish = () => {};
  let tick = () => {};
  let stopped = false;
  const schedule = schedulePurge(
    () => {
      calls++;
      return new Promise<void>((resolve) => finish = resolve);
    },
    5,
    (run, ms) => {
      assert.equal(ms, 5);
      tick = run;
      return () => stopped = true;
    },
  );
  assert.equal(calls, 1, "the first pass starts at once");
  const joined = schedule.purge();
  for (let i = 0; i < 3; i++) tick(); // several intervals pass while the first pass runs
  assert.equal(calls, 1, "no second pass while one is under way");
  finish();
  await joined;
  tick();
  assert.equal(calls, 2, "the next interval starts the next pass");
  const closed = schedule.close();
  assert.equal(stopped, true, "close() stops the timer");
  let done = false;
  const observed = closed.then(() => done = true);
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.equal(done, false, "close() waits for the pass under way");
  finish();
  await observed;
  assert.equal(calls, 2);
});
