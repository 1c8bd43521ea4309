// The one recognition of libSQL's storage failures, and the logger that says them once a minute with the fix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { databaseName, storageError, storageFailure, storageFailureLogger } from "../../../core/db/mod.ts";
import { errorEnvelope } from "../../../core/http/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

test("storageFailure() knows a full disk and a lock by code, by raw code and along the cause chain; nothing else", () => {
  assert.equal(storageFailure({ code: "SQLITE_FULL" }), "full");
  assert.equal(storageFailure({ code: "SQLITE_BUSY" }), "busy");
  assert.equal(storageFailure({ code: "SQLITE_BUSY_SNAPSHOT" }), "busy");
  assert.equal(storageFailure({ code: "SQLITE_LOCKED" }), "busy");
  assert.equal(storageFailure({ rawCode: 13 }), "full");
  assert.equal(storageFailure({ rawCode: 5 | (2 << 8) }), "busy"); // an extended code
  assert.equal(storageFailure(new Error("wrapped", { cause: { code: "SQLITE_FULL" } })), "full");
  for (const other of [new Error("x"), { code: "SQLITE_CONSTRAINT" }, { rawCode: 19 }, "SQLITE_FULL", null, 13]) {
    assert.equal(storageFailure(other), undefined, String(other));
  }
});

test("a real lock from @libsql/client is recognised, and the envelope says 503 STORAGE_BUSY with Retry-After", async () => {
  const dir = tempDir();
  const url = `file:${dir.file("lock.db")}`;
  const holder = createClient({ url });
  const writer = createClient({ url: `${url}?` });
  try {
    await holder.execute("CREATE TABLE t (x)");
    const tx = await holder.transaction("write");
    const failed = await writer.execute("INSERT INTO t VALUES (1)").then(() => null, (error) => error);
    await tx.rollback();
    assert.equal(storageFailure(failed), "busy", String(failed));
    const envelope = errorEnvelope(failed, () => {});
    assert.equal(envelope.status, 503);
    assert.equal(envelope.body.error.code, "STORAGE_BUSY");
    assert.match(envelope.headers?.["retry-after"] ?? "", /^\d+$/);
  } finally {
    holder.close();
    writer.close();
    dir.remove();
  }
});

test("storageError() makes 507 STORAGE_FULL and 503 STORAGE_BUSY with Retry-After, and nothing for other errors", () => {
  const full = storageError({ code: "SQLITE_FULL" });
  assert.equal(full?.status, 507);
  assert.equal(full?.code, "STORAGE_FULL");
  assert.ok(Number(full?.headers?.["retry-after"]) > 0);
  assert.equal(storageError({ code: "SQLITE_BUSY" })?.status, 503);
  assert.equal(storageError(new Error("x")), undefined);
});

test("storageFailureLogger() writes each kind once a minute with the fix and no cause (naming the database without its query), and passes other lines on", () => {
  const lines: [string, unknown][] = [];
  let now = 0;
  const log = storageFailureLogger(
    (m, c) => lines.push([m, c]),
    databaseName("file:/data/svc.db?authToken=x"),
    () => now,
  );
  log("a write failed", { code: "SQLITE_FULL" });
  log("another write failed", { code: "SQLITE_FULL" });
  log("a write waited", { code: "SQLITE_BUSY" });
  const other = new Error("other");
  log("something else", other);
  now += 59_999;
  log("still full", { code: "SQLITE_FULL" });
  now += 1;
  log("full a minute later", { code: "SQLITE_FULL" });
  assert.deepEqual(lines.map(([m]) => m.split(":")[0]), [
    "STORAGE_FULL",
    "STORAGE_BUSY",
    "something else",
    "STORAGE_FULL",
  ]);
  assert.match(lines[0][0], /^STORAGE_FULL: the disk holding file:\/data\/svc\.db is full: free space on it/);
  assert.doesNotMatch(lines[0][0], /authToken/);
  assert.equal(lines[0][1], undefined);
  assert.equal(lines[2][1], other);
});
