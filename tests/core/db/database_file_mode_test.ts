// A database file the toolkit creates is readable by its owner only: the
// folder 0700, the file and its -wal and -shm 0600 (they hold password
// hashes, TOTP secrets, sessions and every event payload).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { openDatabase } from "../../../core/db/mod.ts";
import { databaseTarget } from "../../../cloud/cli/database_url.ts";

const mode = (path: string): number => statSync(path).mode & 0o777;

test(
  "a new database's folder is 0700 and its file, WAL and SHM 0600",
  { skip: process.platform === "win32" },
  async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-db-mode-"));
    try {
      const folder = join(root, "data", "nested");
      const file = join(folder, "svc.db");
      const db = await openDatabase(`file:${file}`);
      await db.execute("CREATE TABLE t (x)");
      await db.execute({ sql: "INSERT INTO t VALUES (?)", args: [1] });
      // Both still open: the WAL and the shared memory file exist now.
      const other = await openDatabase(`file:${file}`);
      assert.equal((await other.execute("SELECT count(*) AS n FROM t")).rows[0].n, 1);
      assert.equal(mode(folder).toString(8), "700");
      for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(path).toString(8), "600", path);
      other.close();
      db.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test("the command line creates a file database's folder 0700", { skip: process.platform === "win32" }, () => {
  const root = mkdtempSync(join(tmpdir(), "svc-cli-mode-"));
  try {
    databaseTarget(`file:${join(root, "data", "svc.db")}`);
    assert.equal(mode(join(root, "data")).toString(8), "700");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
