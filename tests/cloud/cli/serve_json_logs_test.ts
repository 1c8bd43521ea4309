// @slow: a real `serve --log-format json` process
// `serve --log-format json` (and SVC_LOG_FORMAT=json): every line the process writes, on stdout and stderr, is one
// JSON object with time, level and message; each /v1 request has a line with its route, status, ms, project and key
// id, errors included; no line holds a secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProjectCli, request, sdkHeaders } from "../../fixtures/cloud_process.ts";
import process from "node:process";
import { cliCommand, mainScript, printed, repoRoot, run, serve } from "../../fixtures/subprocess.ts";

/**
 * The command line as docs/operating.md runs it: on Deno with `--unstable-no-legacy-abort`, without which Deno itself
 * prints a line of text about `request.signal` at the first request (the runtime's line, not the server's).
 */
const command = "Deno" in globalThis
  ? [process.execPath, "run", "-A", "--unstable-no-legacy-abort", mainScript]
  : cliCommand();

/** Every non-empty line of a text, each parsed as JSON (a line that is not JSON fails the test, naming it). */
function jsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((line) => {
    try {
      const parsed = JSON.parse(line);
      assert.equal(typeof parsed, "object", line);
      return parsed;
    } catch {
      assert.fail(`not a JSON line: ${line}`);
    }
  });
}

test("serve --log-format json writes only JSON lines, one per request with its route, status, ms, project and keyId", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-json-logs-"));
  const db = `file:${join(dir, "cloud.db")}`;
  try {
    const project = await createProjectCli(db);
    const server = await serve([...command, "--db", db], repoRoot, {}, ["--log-format", "json"]);
    const minted = await request(server.url, "POST", "/v1/sdk/keys", sdkHeaders(project), {
      userId: "alice",
      name: "k",
      scopes: [],
    });
    assert.equal(minted.status, 201);
    const { id: keyId, key } = minted.body;
    const inbox = await request(server.url, "GET", "/v1/agent/inbox", { authorization: `Bearer ${key}` });
    assert.equal(inbox.status, 200);
    const strict = await request(server.url, "POST", "/v1/sdk/keys", sdkHeaders(project), {
      userId: "alice",
      name: "k",
      scopes: [],
      scope: [],
    });
    assert.equal(strict.status, 400);
    const unknown = await request(server.url, "GET", "/v1/agent/inbox", {
      authorization: `Bearer svc_live_${"A".repeat(40)}`,
    });
    assert.equal(unknown.status, 401);
    assert.equal((await request(server.url, "GET", "/v1/nowhere", {})).status, 404);
    await printed(server, /"route":"unmatched","status":404/);
    server.child.kill("SIGTERM");
    // The exit code is not compared: Deno's child_process reports a child that exited after a SIGTERM as killed.
    const { stdout, stderr } = await server.done;
    assert.match(stdout, /"message":"svc cloud stopped"/, "the last line, a JSON one");

    const lines = [...jsonLines(stdout), ...jsonLines(stderr)];
    for (const line of lines) {
      assert.equal(typeof line.time, "string");
      assert.equal(new Date(line.time as string).toISOString(), line.time);
      assert.ok(["info", "warn", "error"].includes(line.level as string), JSON.stringify(line));
      assert.equal(typeof line.message, "string");
    }
    const requests = lines.filter((l) => l.route !== undefined);
    const of = (route: string, status: number) => requests.find((l) => l.route === route && l.status === status);
    const minting = of("POST /v1/sdk/keys", 201)!;
    assert.equal(minting.project, project.projectId);
    assert.equal(minting.level, "info");
    assert.equal(typeof minting.ms, "number");
    const polled = of("GET /v1/agent/inbox", 200)!;
    assert.deepEqual([polled.project, polled.keyId], [project.projectId, keyId]);
    assert.equal(of("POST /v1/sdk/keys", 400)!.level, "warn");
    const refused = of("GET /v1/agent/inbox", 401)!;
    assert.equal(refused.keyId, undefined, "a refused key has no id in the line");
    assert.ok(of("unmatched", 404));
    assert.ok(lines.some((l) => /listening on http/.test(l.message as string)), "serve's own lines are JSON too");
    const all = stdout + stderr;
    for (const secret of [key, project.sdkSecret]) assert.equal(all.includes(secret), false, "no secret in a line");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SVC_LOG_FORMAT=json is the flag's default; a bad format is a usage error; a failed start is a JSON line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-json-logs-env-"));
  const db = `file:${join(dir, "cloud.db")}`;
  try {
    const server = await serve([...command, "--db", db], repoRoot, { SVC_LOG_FORMAT: "json" });
    assert.ok(jsonLines(server.stdout()).length > 0);
    server.child.kill("SIGTERM");
    const { stdout, stderr } = await server.done;
    jsonLines(stdout + stderr);

    const bad = await run([...command, "serve", "--log-format", "yaml", "--db", db], repoRoot);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--log-format \(or SVC_LOG_FORMAT\) must be text or json/);

    const taken = await run(
      [...command, "serve", "--log-format", "json", "--port", "70000", "--db", db],
      repoRoot,
    );
    assert.equal(taken.code, 2);
    const [failure] = jsonLines(taken.stderr);
    assert.equal(failure.level, "error");
    assert.match(failure.message as string, /--port/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
