// @slow: subprocesses
// The operator commands of the command line, as real processes of the runtime
// running this test: `admin create|list|password|remove` with the password on
// stdin, and `serve` printing the dashboard and its one-time setup link.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cliCommand, type Finished, finished, repoRoot, start } from "../../fixtures/subprocess.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

const dir = tempDir();
after(() => dir.remove());
const db = `file:${dir.file("admin.db")}`;

/** Runs the command line with `stdin` written to its standard input. */
function cli(args: string[], stdin = ""): Promise<Finished> {
  const [cmd, ...rest] = cliCommand();
  const child = spawn(cmd, [...rest, ...args, "--db", db], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(stdin);
  return finished(child);
}

describe("admin commands", () => {
  test("admin create reads the password from stdin and prints one JSON object", async () => {
    const created = await cli(
      ["admin", "create", "--email", "Ops@Example.com", "--role", "viewer", "--json"],
      "a long password here\n",
    );
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout);
    assert.deepEqual([body.email, body.role], ["ops@example.com", "viewer"]);
    assert.doesNotMatch(created.stdout + created.stderr, /a long password here/);
    const again = await cli(["admin", "create", "--email", "ops@example.com", "--json"], "another long password\n");
    assert.equal(again.code, 1);
    assert.equal(JSON.parse(again.stdout).error.code, "CONFLICT");
  });

  test("admin create refuses a short password, a bad email and an unknown role, storing nothing", async () => {
    const short = await cli(["admin", "create", "--email", "short@example.com", "--json"], "short\n");
    assert.equal(short.code, 1);
    assert.match(JSON.parse(short.stdout).error.message, /at least 12 characters/);
    assert.equal((await cli(["admin", "create", "--email", "nope", "--json"], "a long password here\n")).code, 1);
    const role = await cli(["admin", "create", "--email", "r@example.com", "--role", "root"], "a long password here\n");
    assert.equal(role.code, 2);
    const list = JSON.parse((await cli(["admin", "list", "--json"])).stdout);
    assert.deepEqual(list.operators.map((o: { email: string }) => o.email), ["ops@example.com"]);
  });

  test("admin password and admin remove change an operator, and say so for an unknown one", async () => {
    assert.equal((await cli(["admin", "password", "--email", "ops@example.com"], "a new long password\n")).code, 0);
    const unknown = await cli(["admin", "remove", "--email", "ghost@example.com", "--json"]);
    assert.equal(JSON.parse(unknown.stdout).error.code, "NOT_FOUND");
    assert.equal((await cli(["admin", "remove", "--email", "ops@example.com", "--json"])).code, 0);
    assert.deepEqual(JSON.parse((await cli(["admin", "list", "--json"])).stdout).operators, []);
  });

  test("serve prints the dashboard and a setup link while no operator exists; --no-dashboard turns it off", async () => {
    const served = await serveOnce([]);
    assert.match(served.output, /dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard/);
    const link = /(http:\/\/\S+\/dashboard\/setup\?token=svcu_\w+)/.exec(served.output)![1];
    const page = await fetch(link);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Create the first admin/);
    await served.stop();

    const off = await serveOnce(["--no-dashboard"]);
    assert.doesNotMatch(off.output, /dashboard/);
    const res = await fetch(`${off.url}/dashboard/sign-in`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, "NOT_FOUND");
    await off.stop();
  });
});

/** Starts `serve` and waits for its first lines (the listening line, then the dashboard's). */
function serveOnce(extra: string[]): Promise<{ url: string; output: string; stop(): Promise<void> }> {
  const child = start([...cliCommand(), "serve", "--port", "0", "--host", "127.0.0.1", "--db", db, ...extra], repoRoot);
  const done = finished(child);
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      output += d;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)?.[1];
      const complete = extra.includes("--no-dashboard") || /admin create --email/.test(output);
      if (url && complete) {
        resolve({
          url,
          output,
          async stop() {
            child.kill("SIGTERM");
            await done;
          },
        });
      }
    });
    done.then((f) => reject(new Error(`serve exited early: ${f.stderr}`)));
  });
}
