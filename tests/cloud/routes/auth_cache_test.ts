// @slow: subprocesses
// The in-process caches of cloud auth (a key's auth state, a project's secret hash) are dropped when
// another process commits to the same file: a revoke or a rotation elsewhere applies to the next request.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { cliCommand, repoRoot, run } from "../../fixtures/subprocess.ts";
import {
  type CloudProcess,
  createProjectCli,
  type ProcessProject,
  request,
  sdkHeaders,
  startCloudProcess,
} from "../../fixtures/cloud_process.ts";

const dir = tempDir("svc-auth-cache-");

describe("cloud auth caches across two processes on one file", () => {
  const db = `file:${dir.file("svc.db")}`;
  let project: ProcessProject;
  let servers: CloudProcess[] = [];
  before(async () => {
    project = await createProjectCli(db);
    servers = await Promise.all([startCloudProcess(db), startCloudProcess(db)]);
  });
  after(async () => {
    for (const s of servers) s.child.kill("SIGTERM");
    await Promise.all(servers.map((s) => s.done));
    dir.remove();
  });

  test("a key revoked through the other process is refused by this one on the next request", async () => {
    const [a, b] = servers.map((s) => s.url);
    const minted = await request(a, "POST", "/v1/sdk/keys", sdkHeaders(project), {
      userId: "u1",
      name: "k",
      scopes: [],
    });
    assert.equal(minted.status, 201, minted.text);
    const auth = { authorization: `Bearer ${minted.body.key}` };
    const poll = async (url: string, expected: number, step: string) => {
      const res = await request(url, "GET", "/v1/agent/inbox", auth);
      assert.equal(res.status, expected, `${step}: ${res.status} ${res.text}`);
    };
    for (let i = 0; i < 3; i++) await poll(a, 200, `poll ${i + 1} before the revoke`);
    const revoked = await request(b, "DELETE", `/v1/sdk/keys/${minted.body.id}`, sdkHeaders(project));
    assert.equal(revoked.status, 200, revoked.text);
    await poll(a, 401, "the server that cached the key");
    await poll(b, 401, "the server that revoked");
  });

  test("a secret rotated by the command line stops working in both servers on the next request", async () => {
    const [a, b] = servers.map((s) => s.url);
    for (const url of [a, b]) {
      assert.equal((await request(url, "GET", "/v1/sdk/keys?userId=u1", sdkHeaders(project))).status, 200);
    }
    const rotated = await run(
      [...cliCommand(), "project", "rotate-secret", project.projectId, "--json", "--db", db],
      repoRoot,
    );
    assert.equal(rotated.code, 0, rotated.stderr);
    const next: ProcessProject = { projectId: project.projectId, sdkSecret: JSON.parse(rotated.stdout).sdkSecret };
    for (const url of [a, b]) {
      assert.equal((await request(url, "GET", "/v1/sdk/keys?userId=u1", sdkHeaders(project))).status, 401);
      assert.equal((await request(url, "GET", "/v1/sdk/keys?userId=u1", sdkHeaders(next))).status, 200);
    }
    project = next;
  });
});
