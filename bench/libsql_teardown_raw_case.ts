// The smallest reproduction of the libSQL crash under Deno's test runner, with the `libsql` binding alone (no code
// of this project). Run by `bench/libsql_stress.ts --only=upstream`, or by hand:
//   deno test -A bench/libsql_teardown_raw_case.ts      (Deno 2.9.6, libsql 0.5.29: SIGSEGV 10 runs in 10)
// After the test ends, Deno runs the file's Node-API finalizers (freeing each Database and Statement box) and then
// keeps running its timers; the next call on `db` reads the freed box.
import { test } from "node:test";
import { createRequire } from "node:module";

const Database = createRequire(import.meta.url)("libsql");

test("a database a timer still uses once the test has ended", () => {
  const dbs = Array.from({ length: 8 }, () => new Database(":memory:"));
  for (const db of dbs) db.exec("CREATE TABLE t (v TEXT)");
  let rounds = 0;
  const timer = setInterval(() => {
    for (const db of dbs) db.prepare("INSERT INTO t VALUES (?)").run([`r${rounds}`]);
    if (++rounds === 300) clearInterval(timer);
  }, 1);
});
