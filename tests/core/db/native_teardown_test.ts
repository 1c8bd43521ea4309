// @slow: runs `deno test` and the runtime itself in child processes
// No native crash when a database is used after its isolate's end (issue 33, item 11). Deno's test runner finalizes
// a test file's native objects right after its `unload` event, then keeps running the file's timers; a timer that
// still used a database (a retry loop after close(), a test that never closed its app) called into freed memory and
// killed the whole run with SIGSEGV, 10 runs in 10 before the executors (native, and injected @libsql/client ones)
// stopped reaching the binding at unload.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { repoRoot, run } from "../../fixtures/subprocess.ts";
import { runtime } from "../../fixtures/runtime.ts";

const deno = "Deno" in globalThis ? process.execPath : join(repoRoot, "node_modules", ".bin", "deno");
const ROUNDS = 3;

test("databases still used by a timer after a Deno test file has ended never crash the process", async () => {
  for (let round = 1; round <= ROUNDS; round++) {
    const { code, stdout, stderr } = await run(
      [deno, "test", "-A", "--no-check", "tests/fixtures/native_teardown_case.ts"],
      repoRoot,
    );
    assert.equal(
      code,
      0,
      `round ${round}: deno test ended with ${code} (null: killed by a signal)\n${stdout}\n${stderr}`,
    );
    assert.match(stdout, /1 passed/, `round ${round}`);
  }
});

test("an executor closed while a transaction runs rolls it back and never calls the binding again", async () => {
  const file = join(repoRoot, "tests", "fixtures", "native_close_case.ts");
  const command = runtime === "deno" ? [process.execPath, "run", "-A", file] : [process.execPath, file];
  const { code, stdout, stderr } = await run(command, repoRoot);
  // Before: the transaction's rollback asked the closed binding whether a transaction was open, and libsql aborted.
  assert.equal(code, 0, `the child ended with ${code} (null: killed by a signal)\n${stderr}`);
  assert.deepEqual(JSON.parse(stdout), {
    outcome: "The database is closed",
    afterClose: "The database is closed",
    rows: ["another connection"],
  });
});
