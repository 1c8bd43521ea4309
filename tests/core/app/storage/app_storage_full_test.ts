// The app's own storage on a full disk: /svc writes answer 507 STORAGE_FULL with Retry-After (never 500), reads and
// a key's first use are served, the log says it once with the fix, and writes work again once there is room.
// Needs `mount -t tmpfs` (root): where the machine refuses it, the test is skipped with the reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { asUser, errorOf, mint, notesSvc, run } from "../../../fixtures/notes_svc.ts";
import { fillDisk, mountTmpfs, unmount } from "../../../fixtures/small_disk.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";

test("on a full disk /svc writes answer 507 STORAGE_FULL, reads and a key's first use 200, writes again once freed", async (t) => {
  const dir = tempDir("svc-app-");
  const refused = mountTmpfs(dir.path, "4m");
  if (refused !== undefined) {
    console.log(`skipped: ${refused}`);
    t.skip(refused);
    dir.remove();
    return;
  }
  const logged: string[] = [];
  const svc = notesSvc({ storage: `file:${dir.file("app.db")}`, logger: (message) => logged.push(message) });
  try {
    await svc.ready;
    const used = await mint(svc, "alice", ["notes:read"]);
    const unused = await mint(svc, "alice", ["notes:read"]); // never used: its first use writes its last-used time
    assert.equal((await run(svc, used.key, "notes.list")).status, 200);

    fillDisk(dir.file("filler"));

    const minted = await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scopes: [] });
    assert.equal(minted.status, 507);
    assert.equal((await errorOf(minted)).code, "STORAGE_FULL");
    assert.match(minted.headers.get("retry-after") ?? "", /^\d+$/);
    const revoked = await asUser(svc, "alice", "DELETE", `/svc/keys/${used.id}`);
    assert.equal(revoked.status, 507);
    assert.equal((await errorOf(revoked)).code, "STORAGE_FULL");

    assert.equal((await asUser(svc, "alice", "GET", "/svc/keys")).status, 200);
    const firstUse = await run(svc, unused.key, "notes.list");
    assert.equal(firstUse.status, 200, await firstUse.clone().text());
    assert.equal((await run(svc, used.key, "notes.list")).status, 200);

    rmSync(dir.file("filler"));
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${used.id}`)).status, 200);
    assert.equal((await run(svc, used.key, "notes.list")).status, 401);
    const full = logged.filter((m) => m.startsWith("STORAGE_FULL: the disk holding"));
    assert.equal(full.length, 1, logged.join("\n"));
    assert.ok(!logged.some((m) => m.startsWith("INTERNAL")), logged.join("\n"));
  } finally {
    await svc.close();
    unmount(dir.path);
    dir.remove();
  }
});
