// @slow: packaging (builds the single binary) and subprocesses
// The single binary: built once per suite run (in the Node run; the Deno and
// Bun runs skip it, the build being the same), then run from an empty folder
// with no node_modules: create a project, serve, answer an SDK request, and
// serve the dashboard (setup link, first admin, the project's page).
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, run, serve } from "../fixtures/subprocess.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { formClient } from "./dashboard/form_client.ts";

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const skip = isNode ? false : "the binary is built and tested once per suite run, in the Node run";

describe("dist/svc-cloud", { skip }, () => {
  const build = tempDir("svc-cloud-build-");
  const empty = tempDir("svc-cloud-empty-");
  after(() => {
    build.remove();
    empty.remove();
  });

  test("builds with bun build --compile, libsql's native module embedded", async () => {
    const out = build.file("svc-cloud");
    const bun = join(repoRoot, "node_modules", ".bin", "bun");
    const built = await run([bun, join(repoRoot, "scripts", "compile_binary.ts"), out], repoRoot);
    assert.equal(built.code, 0, built.stderr);
    assert.ok(statSync(out).size > 1_000_000);
    copyFileSync(out, join(empty.path, "svc-cloud"));
  });

  test("creates a project and serves SDK requests from an empty folder", async () => {
    const binary = [join(empty.path, "svc-cloud")];
    const created = await run([...binary, "project", "create", "--name", "Binary", "--json"], empty.path);
    assert.equal(created.code, 0, created.stderr);
    const { projectId, sdkSecret } = JSON.parse(created.stdout);
    const server = await serve(binary, empty.path);
    const res = await fetch(`${server.url}/v1/sdk/violations`, {
      headers: { authorization: `Bearer ${sdkSecret}`, "x-svc-project": projectId },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { violations: [], total: 0 });

    // The dashboard: the setup link creates the first admin, who sees the project.
    const link = /(http:\/\/127\.0\.0\.1:\d+\/dashboard\/setup\?token=\S+)/.exec(server.stdout())?.[1];
    assert.ok(link, "serve printed the setup link");
    const browser = formClient((req) => fetch(req, { redirect: "manual" }), server.url);
    const setupPath = link.slice(server.url.length);
    assert.equal((await browser.get(setupPath)).status, 200);
    const firstAdmin = await browser.post(setupPath, { email: "ops@example.com", password: "a long binary password" });
    assert.equal(firstAdmin.status, 303, firstAdmin.text);
    const projects = await browser.get("/dashboard/projects");
    assert.equal(projects.status, 200);
    assert.match(projects.text, />Binary</);
    assert.equal((await browser.get("/dashboard/style.css")).status, 200);
    server.child.kill("SIGTERM");
    assert.equal((await server.done).code, 0);
  });
});
