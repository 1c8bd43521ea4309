// `serve` under a real subprocess of the runtime running the suite.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cliCommand, finished, run, serve, start } from "../../fixtures/subprocess.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

const dir = tempDir();
after(() => dir.remove());

test("serve on a port in use prints one line saying so, exits 1, and leaves nothing running", async () => {
  const first = await serve(cliCommand(), dir.path, { SVC_DB_URL: `file:${dir.file("first.db")}` });
  try {
    const port = new URL(first.url).port;
    const second = await run(
      [...cliCommand(), "serve", "--port", port, "--host", "127.0.0.1", "--db", ":memory:"],
      dir.path,
    );
    assert.equal(second.code, 1);
    assert.equal(
      second.stderr,
      `error: Port ${port} on 127.0.0.1 is already in use: stop the other server or choose another port\n`,
    );
    assert.equal(second.stdout, "");
  } finally {
    first.child.kill("SIGTERM");
    await first.done;
  }
});

test("serve listens on 127.0.0.1 by default and prints that address, not a wildcard", async () => {
  const child = start([...cliCommand(), "serve", "--port", "0", "--db", ":memory:"], dir.path);
  const done = finished(child);
  const line = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("\n")) resolve(seen.split("\n")[0]);
    });
    done.then((f) => reject(new Error(`serve exited early (${f.code}): ${f.stderr}`)));
  });
  child.kill("SIGTERM");
  await done;
  assert.match(line, /^svc cloud listening on http:\/\/127\.0\.0\.1:\d+\/v1 \(db: :memory:\)$/);
});

test("--version prints the package version", async () => {
  const deno = JSON.parse(readFileSync("deno.json", "utf8"));
  const plain = await run([...cliCommand(), "--version"], dir.path);
  assert.equal(plain.code, 0);
  assert.equal(plain.stdout, `svc-cloud ${deno.version}\n`);
  const json = await run([...cliCommand(), "--version", "--json"], dir.path);
  assert.deepEqual(JSON.parse(json.stdout), { name: deno.name, version: deno.version });
});
