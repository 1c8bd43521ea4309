// What one statement costs through @libsql/client, next to the same prepared
// statement on the native libsql binding it wraps, and this toolkit's executor (the floor under any key check):
//   deno run -A bench/statement_cost.ts   (or node / bun)
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { openDatabase } from "../core/db/mod.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-stmt-"));
const file = join(dir, "k.db");
const client = createClient({ url: `file:${file}` });
await client.execute("CREATE TABLE k (hash TEXT PRIMARY KEY, revoked_at TEXT)");
await client.execute({ sql: "INSERT INTO k VALUES (?, NULL)", args: ["abc"] });
const N = 20_000;

async function time(label: string, run: () => unknown): Promise<void> {
  for (let i = 0; i < 2000; i++) await run();
  const start = performance.now();
  for (let i = 0; i < N; i++) await run();
  console.log(`${label.padEnd(48)} ${((performance.now() - start) / N * 1000).toFixed(1)} µs`);
}

await time(
  "@libsql/client: SELECT revoked_at WHERE hash = ?",
  () => client.execute({ sql: "SELECT revoked_at FROM k WHERE hash = ?", args: ["abc"] }),
);
await time("@libsql/client: PRAGMA data_version", () => client.execute("PRAGMA data_version"));
const Database = createRequire(import.meta.url)("libsql");
const db = new Database(file);
const select = db.prepare("SELECT revoked_at FROM k WHERE hash = ?");
await time("native libsql, prepared once: the same SELECT", () => select.get("abc"));
db.close();
const executor = await openDatabase(`file:${file}`);
await time(
  "this toolkit's executor (native engine): the same SELECT",
  () => executor.execute({ sql: "SELECT revoked_at FROM k WHERE hash = ?", args: ["abc"] }),
);
await time("this toolkit's executor: dataVersion() (once per turn)", () => executor.dataVersion());
executor.close();
client.close();
rmSync(dir, { recursive: true, force: true });
