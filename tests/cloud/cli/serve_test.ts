// @slow: subprocesses
// `serve` under a real subprocess of the runtime running the suite.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cliCommand, finished, printed, run, serve, start } from "../../fixtures/subprocess.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { formClient } from "../dashboard/form_client.ts";
import { OPERATOR_PASSWORD as PASSWORD } from "../dashboard/operator_fixture.ts";
import { serveOptions } from "../../../cloud/cli/serve.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";

/** The dashboard's form client over a real socket (redirects not followed). */
const overSocket = (url: string) => formClient((req) => fetch(req, { redirect: "manual" }), url);

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

test("--public-url https://…: a sign-in over the real socket from that origin gets a Secure cookie and HSTS; without it, neither", async () => {
  const db = `file:${dir.file("public.db")}`;
  const publicUrl = "https://svc.example.test";
  const proxied = await serve(cliCommand(), dir.path, {}, ["--db", db, "--public-url", publicUrl]);
  try {
    assert.equal((await printed(proxied, /^dashboard: (\S+)$/m))[1], `${publicUrl}/dashboard`);
    const link = (await printed(proxied, /^ {2}(\S+\/dashboard\/setup\?token=\S+)$/m))[1];
    assert.ok(link.startsWith(`${publicUrl}/dashboard/setup?token=`), link);

    const setup = overSocket(proxied.url);
    await setup.get(link.slice(publicUrl.length));
    const created = await setup.post(link.slice(publicUrl.length), { email: "ops@example.com", password: PASSWORD }, {
      headers: { origin: publicUrl },
    });
    assert.equal(created.status, 303, created.text);

    const browser = overSocket(proxied.url);
    await browser.get("/dashboard/sign-in");
    const res = await browser.post("/dashboard/sign-in", { email: "ops@example.com", password: PASSWORD }, {
      headers: { origin: publicUrl },
    });
    assert.equal(res.status, 303, res.text);
    assert.match(res.headers.getSetCookie().find((c) => c.startsWith("__Host-svc_session=")) ?? "", /; Secure/);
    assert.equal(res.headers.get("strict-transport-security"), "max-age=31536000");
  } finally {
    proxied.child.kill("SIGTERM");
    await proxied.done;
  }

  const plain = await serve(cliCommand(), dir.path, {}, ["--db", db]);
  try {
    assert.equal((await printed(plain, /^dashboard: (\S+)$/m))[1], `${plain.url}/dashboard`);
    const browser = overSocket(plain.url);
    await browser.get("/dashboard/sign-in");
    const res = await browser.post("/dashboard/sign-in", { email: "ops@example.com", password: PASSWORD }, {
      headers: { origin: plain.url },
    });
    assert.equal(res.status, 303, res.text);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_session="));
    assert.ok(cookie && !cookie.includes("Secure"), String(cookie));
    assert.equal(res.headers.get("strict-transport-security"), null);
  } finally {
    plain.child.kill("SIGTERM");
    await plain.done;
  }
});

test("--public-url refuses anything but an http(s) origin with a usage error", () => {
  for (const bad of ["svc.example.com", "ftp://svc.example.com", "https://svc.example.com/dashboard"]) {
    assert.throws(() => serveOptions(parseCommandLine(["serve", "--public-url", bad])), {
      code: "USAGE",
      message: /^--public-url: The public URL must be an http:\/\/ or https:\/\/ origin/,
    }, bad);
  }
  const given = serveOptions(parseCommandLine(["serve", "--public-url", "https://svc.example.com:443/"]));
  assert.equal(given.publicUrl, "https://svc.example.com");
});

test("--sign-in-wait takes whole seconds from 1 to 900 (it can only lengthen the default 1 s), else a usage error", () => {
  assert.equal(serveOptions(parseCommandLine(["serve"])).signInWaitMs, undefined);
  assert.equal(serveOptions(parseCommandLine(["serve", "--sign-in-wait", "600"])).signInWaitMs, 600_000);
  assert.equal(serveOptions(parseCommandLine(["serve", "--sign-in-wait", "1"])).signInWaitMs, 1000);
  for (const bad of ["0", "0.5", "-1", "901", "soon"]) {
    assert.throws(() => serveOptions(parseCommandLine(["serve", `--sign-in-wait=${bad}`])), {
      code: "USAGE",
      message: /^--sign-in-wait must be a whole number of seconds, 1 to 900$/,
    }, bad);
  }
});

test("--metrics-token takes 16 to 200 printable characters without spaces, else a usage error", () => {
  const token = "0123456789abcdef0123";
  assert.equal(serveOptions(parseCommandLine(["serve", "--metrics-token", token])).metricsToken, token);
  for (const bad of ["short", "has a space in it here", "x".repeat(201)]) {
    assert.throws(() => serveOptions(parseCommandLine(["serve", "--metrics-token", bad])), {
      code: "USAGE",
      message: /^--metrics-token \(or SVC_METRICS_TOKEN\) must be 16 to 200 printable characters/,
    }, bad);
  }
});
