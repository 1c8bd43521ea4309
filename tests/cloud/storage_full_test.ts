// @slow: a real `serve` process on a database in a small tmpfs that is filled, then freed
// A full disk under the cloud: writes answer 507 STORAGE_FULL with Retry-After (never 500 INTERNAL), reads and a
// key's first use keep working, the log says it once with the fix, and writes work again once there is room, without
// a restart. Needs `mount -t tmpfs` (root): where the machine refuses it, the test is skipped with the reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { createProjectCli, mintKeyVia, request, sdkHeaders } from "../fixtures/cloud_process.ts";
import { cliCommand, printed, repoRoot, serve } from "../fixtures/subprocess.ts";
import { formClient } from "./dashboard/form_client.ts";
import { OPERATOR_PASSWORD as PASSWORD } from "./dashboard/operator_fixture.ts";
import { fillDisk, mountTmpfs, unmount } from "../fixtures/small_disk.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { waitFor } from "../fixtures/wait_for.ts";

test("on a full disk writes answer 507 STORAGE_FULL with Retry-After, reads and a key's first use 200, and writes work again once there is room", async (t) => {
  const dir = tempDir();
  const refused = mountTmpfs(dir.path, "8m");
  if (refused !== undefined) {
    console.log(`skipped: ${refused}`);
    t.skip(refused);
    dir.remove();
    return;
  }
  try {
    const db = `file:${dir.file("svc.db")}`;
    const project = await createProjectCli(db);
    const cloud = await serve(cliCommand(), repoRoot, {}, ["--db", db]);
    try {
      // An operator signed in to the dashboard over the socket, before the disk fills.
      const link = (await printed(cloud, /^ {2}\S+(\/dashboard\/setup\?token=\S+)$/m))[1];
      const operator = formClient((req) => fetch(req, { redirect: "manual" }), cloud.url);
      await operator.get(link);
      const created = await operator.post(link, { email: "ops@example.com", password: PASSWORD }, {
        headers: { origin: cloud.url },
      });
      assert.equal(created.status, 303, created.text);
      await operator.get("/dashboard/sign-in");
      const signedIn = await operator.post("/dashboard/sign-in", { email: "ops@example.com", password: PASSWORD }, {
        headers: { origin: cloud.url },
      });
      assert.equal(signedIn.status, 303, signedIn.text);
      const sdk = sdkHeaders(project);
      const toRevoke = await mintKeyVia(cloud.url, project, "u1");
      const minted = await request(cloud.url, "POST", "/v1/sdk/keys", sdk, { userId: "u2", name: "k", scopes: [] });
      assert.equal(minted.status, 201, minted.text);
      const unused = minted.body.key as string; // never used: its first use writes its last-used time
      const listed = await request(cloud.url, "GET", "/v1/sdk/keys?userId=u1", sdk);
      const revokeId = listed.body.keys[0].id as string;
      const event = (eventId: string) => ({ eventId, type: "t", agentId: "u1", payload: {} });
      assert.equal((await request(cloud.url, "POST", "/v1/events", sdk, event("before"))).status, 202);

      fillDisk(dir.file("filler"));

      const emitted = await request(cloud.url, "POST", "/v1/events", sdk, event("full"));
      assert.equal(emitted.status, 507, emitted.text);
      assert.equal(emitted.body.error.code, "STORAGE_FULL");
      const revoked = await request(cloud.url, "DELETE", `/v1/sdk/keys/${revokeId}`, sdk);
      assert.equal(revoked.status, 507, revoked.text);
      assert.equal(revoked.body.error.code, "STORAGE_FULL");
      const withHeaders = await fetch(`${cloud.url}/v1/events`, {
        method: "POST",
        headers: { ...sdk, "content-type": "application/json" },
        body: JSON.stringify(event("full-2")),
      });
      assert.equal(withHeaders.status, 507);
      assert.match(withHeaders.headers.get("retry-after") ?? "", /^\d+$/);
      await withHeaders.body?.cancel();

      // The health check says so, for a load balancer to take this node out of rotation.
      const health = await request(cloud.url, "GET", "/v1/health", {});
      assert.equal(health.status, 503, health.text);
      assert.deepEqual([health.body.ok, health.body.storage], [false, "full"]);

      // Reads: the SDK's list, and a key's first use (its last-used write is best-effort).
      assert.equal((await request(cloud.url, "GET", "/v1/sdk/keys?userId=u1", sdk)).status, 200);
      const firstUse = await request(cloud.url, "GET", "/v1/agent/inbox", { authorization: `Bearer ${unused}` });
      assert.equal(firstUse.status, 200, firstUse.text);
      assert.equal(
        (await request(cloud.url, "GET", "/v1/agent/inbox", { authorization: `Bearer ${toRevoke}` })).status,
        200,
      );

      // The dashboard: its pages read, its forms that write answer 507 with a page that says so.
      const keysPage = `/dashboard/projects/${project.projectId}/keys`;
      assert.equal((await operator.get(keysPage)).status, 200);
      await operator.get(`${keysPage}/${revokeId}/revoke`);
      const refused = await operator.post(`${keysPage}/${revokeId}/revoke`, {}, { headers: { origin: cloud.url } });
      assert.equal(refused.status, 507, refused.text);
      assert.match(refused.text, /Storage full/);
      assert.match(refused.headers.get("retry-after") ?? "", /^\d+$/);

      rmSync(dir.file("filler"));
      const again = await waitFor("a write to succeed once there is room", async () => {
        const res = await request(cloud.url, "DELETE", `/v1/sdk/keys/${revokeId}`, sdk);
        return res.status === 200 && res;
      });
      assert.equal(again.body.ok, true);
      assert.equal((await request(cloud.url, "GET", "/v1/health", {})).body.storage, "ok", "a write succeeded since");
      assert.equal((await request(cloud.url, "POST", "/v1/events", sdk, event("after"))).status, 202);
      assert.equal(
        (await request(cloud.url, "GET", "/v1/agent/inbox", { authorization: `Bearer ${toRevoke}` })).status,
        401,
      );
    } finally {
      cloud.child.kill("SIGTERM");
      const done = await cloud.done;
      const lines = done.stderr.split("\n").filter((l) => l.includes("STORAGE_FULL: the disk holding"));
      assert.equal(lines.length, 1, done.stderr);
      assert.match(lines[0], /free space on it/);
      assert.doesNotMatch(done.stderr, /INTERNAL|SqliteError|\n\s+at /); // no stack
    }
  } finally {
    unmount(dir.path);
    dir.remove();
  }
});
