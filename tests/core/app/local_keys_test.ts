// @slow: subprocesses
// Key verification on the app side is served from the storage's cache, which a revoke through another
// connection to the same file (another process, for SQLite) or through this one invalidates at once.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openAppStorage } from "../../../core/app/storage/mod.ts";
import { localKeys } from "../../../core/app/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { repoRoot, run } from "../../fixtures/subprocess.ts";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { nextTurns } from "../../fixtures/wait_for.ts";

/** Runs tests/fixtures/app_key_process.ts under the runtime running this test. */
async function otherProcess(...args: string[]): Promise<string> {
  const script = fileURLToPath(new URL("../../fixtures/app_key_process.ts", import.meta.url));
  const command = "Deno" in globalThis ? [process.execPath, "run", "-A", script] : [process.execPath, script];
  const { code, stdout, stderr } = await run([...command, ...args], repoRoot);
  assert.equal(code, 0, stderr);
  return stdout;
}

const dir = tempDir("svc-local-keys-");
after(() => dir.remove());
const quiet = () => {};
/** Requests arrive in event-loop turns: the next one comes after this turn. */
const nextRequest = () => nextTurns(2);

describe("localKeys() verification with a cached key", () => {
  test("a key revoked through another connection to the file is refused on the next verification", async () => {
    const url = `file:${dir.file("keys.db")}`;
    const [mine, other] = [await openAppStorage(url), await openAppStorage(url)];
    const keys = localKeys(mine, { sharedInbox: false, log: quiet });
    try {
      const { key, secret } = await keys.mint("u1", { name: "k", scopes: ["notes:read"] });
      for (let i = 0; i < 3; i++) assert.equal((await keys.verify(secret))?.revokedAt, null);
      assert.notEqual(await other.revokeKey("u1", key.id, new Date().toISOString()), null);
      await nextRequest();
      assert.notEqual((await keys.verify(secret))?.revokedAt, null);
    } finally {
      await keys.close();
      await mine.close();
      await other.close();
    }
  });

  test("a key minted, then revoked, by another process is known, then refused, on the next verification", async () => {
    const url = `file:${dir.file("processes.db")}`;
    const storage = await openAppStorage(url);
    const keys = localKeys(storage, { sharedInbox: false, log: quiet });
    try {
      const { id, secret } = JSON.parse(await otherProcess(url, "mint", "u3"));
      for (let i = 0; i < 3; i++) assert.equal((await keys.verify(secret))?.revokedAt, null);
      await otherProcess(url, "revoke", "u3", id);
      assert.notEqual((await keys.verify(secret))?.revokedAt, null);
    } finally {
      await keys.close();
      await storage.close();
    }
  });

  test("a key revoked in this process is refused on the next verification", async () => {
    const storage = await openAppStorage(":memory:");
    const keys = localKeys(storage, { sharedInbox: false, log: quiet });
    try {
      const { key, secret } = await keys.mint("u1", { name: "k", scopes: [] });
      assert.equal((await keys.verify(secret))?.revokedAt, null);
      assert.notEqual(await keys.revoke("u1", key.id), null);
      assert.notEqual((await keys.verify(secret))?.revokedAt, null);
    } finally {
      await keys.close();
      await storage.close();
    }
  });

  test("a key minted through another connection is known on the next verification", async () => {
    const url = `file:${dir.file("mint.db")}`;
    const [mine, other] = [await openAppStorage(url), await openAppStorage(url)];
    const keys = localKeys(mine, { sharedInbox: false, log: quiet });
    const elsewhere = localKeys(other, { sharedInbox: false, log: quiet });
    try {
      const { secret } = await elsewhere.mint("u2", { name: "k", scopes: [] });
      await nextRequest();
      assert.equal((await keys.verify(secret))?.userId, "u2");
    } finally {
      await keys.close();
      await elsewhere.close();
      await mine.close();
      await other.close();
    }
  });
});
