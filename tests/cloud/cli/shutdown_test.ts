// @slow: real `serve` processes under load, stopped with SIGTERM
// Shutdown that ends: SIGTERM answers held long polls at once, tells kept-alive clients `Connection: close`, closes
// their connections and exits within `--shutdown-timeout` whatever the clients do; a second signal exits at once.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import process from "node:process";
import { createProjectCli, mintKeyVia } from "../../fixtures/cloud_process.ts";
import { keptAliveClient } from "../../fixtures/kept_alive_client.ts";
import { cliCommand, printed, repoRoot, serve } from "../../fixtures/subprocess.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { serveOptions } from "../../../cloud/cli/serve.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";
import { settlesWithin, waitFor } from "../../fixtures/wait_for.ts";

const dir = tempDir();
after(() => dir.remove());

/** Far more than any bound under test: a process still running this long after SIGTERM failed the test. */
const GUARD_MS = 30_000;
/** Each client's budget of requests: more than it can send before the guard (it would keep the old server alive). */
const BUDGET = 1_000_000;

test("SIGTERM under kept-alive traffic answers held polls, closes every connection and exits before --shutdown-timeout", async () => {
  const db = `file:${dir.file("traffic.db")}`;
  const project = await createProjectCli(db);
  const cloud = await serve(cliCommand(), repoRoot, {}, ["--db", db, "--no-dashboard", "--shutdown-timeout", "5"]);
  const port = Number(new URL(cloud.url).port);
  const key = await mintKeyVia(cloud.url, project, "u1");
  const host = `host: 127.0.0.1:${port}`;
  const inbox = `GET /v1/agent/inbox?wait=20 HTTP/1.1\r\n${host}\r\nauthorization: Bearer ${key}`;
  const feed = `GET /v1/sdk/keys/revocations?wait=20 HTTP/1.1\r\n${host}\r\n` +
    `authorization: Bearer ${project.sdkSecret}\r\nx-svc-project: ${project.projectId}`;
  const list = `GET /v1/sdk/keys?userId=u1 HTTP/1.1\r\n${host}\r\n` +
    `authorization: Bearer ${project.sdkSecret}\r\nx-svc-project: ${project.projectId}`;
  // Held polls whose clients reuse the connection at once for more requests, and clients that never pause.
  const polls = [keptAliveClient(port, [inbox, list], BUDGET), keptAliveClient(port, [feed, list], BUDGET)];
  const busy = [keptAliveClient(port, [list], BUDGET), keptAliveClient(port, [list], BUDGET)];
  const idle = keptAliveClient(port, [list], 1); // one answer, then idle on a kept-alive connection
  try {
    await waitFor(
      "the polls to be sent and the busy clients answered many times since",
      () =>
        polls.every((c) => c.sent === 1) && busy.every((c) => c.statuses.length >= 20) &&
        idle.statuses.length === 1,
    );
    const heldAtSignal = polls.map((c) => c.statuses.length);
    assert.deepEqual(heldAtSignal, [0, 0], "the polls are held when the signal comes");

    cloud.child.kill("SIGTERM");
    const exited = await settlesWithin(cloud.done, GUARD_MS, "the process's exit after SIGTERM");
    // Stopped cleanly, before its 5 s bound (the exit code is not compared: Deno's child_process reports a child
    // that exited by itself after a SIGTERM as killed by it).
    assert.match(exited.stdout, /SIGTERM: answering held polls.*\nsvc cloud stopped\n$/s, exited.stderr);
    for (const client of [...polls, ...busy, idle]) await settlesWithin(client.closed, GUARD_MS, "a connection's end");
    // The held polls were answered with their normal empty answer, not cut.
    for (const client of polls) assert.equal(client.statuses[0], 200, `the held poll: ${client.statuses}`);
    // Every connection was told to close, or closed, well before its client's request budget ran out.
    for (const client of [...polls, ...busy]) {
      assert.ok(client.sent < BUDGET, `a client kept its connection for all its ${client.sent} requests`);
    }
  } finally {
    cloud.child.kill("SIGKILL");
    for (const client of [...polls, ...busy, idle]) client.close();
  }
});

test("SIGTERM with a request stuck in flight exits at --shutdown-timeout, and a second SIGTERM exits at once", async () => {
  const db = `file:${dir.file("stuck.db")}`;
  const project = await createProjectCli(db);
  const sdk = `authorization: Bearer ${project.sdkSecret}\r\nx-svc-project: ${project.projectId}`;
  for (const [timeout, signals] of [["1", 1], ["600", 2]] as const) {
    const cloud = await serve(cliCommand(), repoRoot, {}, [
      "--db",
      db,
      "--no-dashboard",
      "--shutdown-timeout",
      timeout,
    ]);
    const port = Number(new URL(cloud.url).port);
    // A request whose body never ends: in flight until the server gives up on it.
    const stuck = connect({ port, host: "127.0.0.1" });
    stuck.on("error", () => {});
    let answered = false;
    stuck.on("data", () => answered = true);
    stuck.write(
      `POST /v1/events HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${sdk}\r\ncontent-type: application/json\r\n` +
        "content-length: 100000\r\n\r\n{",
    );
    try {
      // The head reached the server: a second connection's request was answered after it.
      const probe = keptAliveClient(port, [`GET /v1/sdk/keys HTTP/1.1\r\nhost: 127.0.0.1:${port}`], 1);
      await waitFor("a later request to be answered", () => probe.statuses.length === 1);
      probe.close();
      assert.equal(answered, false, "the stuck request is still in flight");
      cloud.child.kill("SIGTERM");
      if (signals === 2) {
        await printed(cloud, /SIGTERM: answering held polls/); // the first was taken: a second is not merged into it
        process.kill(cloud.child.pid!, "SIGTERM"); // not child.kill(): Deno's sends one signal per child at most
      }
      const exited = await settlesWithin(
        cloud.done,
        GUARD_MS,
        `the exit (--shutdown-timeout ${timeout}, ${signals} signals)`,
      );
      // It ended itself, saying why (the guard is far longer than the 1 s bound, and 600 s is never waited).
      const why = signals === 2 ? /SIGTERM: second signal: exiting now\n$/ : /shutdown timeout \(1 s\)/;
      assert.match(exited.stdout, why);
    } finally {
      cloud.child.kill("SIGKILL");
      stuck.destroy();
    }
  }
});

test("--shutdown-timeout takes whole seconds from 1 to 3600 (default 10), else a usage error", () => {
  assert.equal(serveOptions(parseCommandLine(["serve"])).shutdownTimeoutMs, 10_000);
  assert.equal(serveOptions(parseCommandLine(["serve", "--shutdown-timeout", "2"])).shutdownTimeoutMs, 2_000);
  for (const bad of ["0", "1.5", "-1", "3601", "soon"]) {
    assert.throws(() => serveOptions(parseCommandLine(["serve", `--shutdown-timeout=${bad}`])), {
      code: "USAGE",
      message: /^--shutdown-timeout must be a whole number of seconds, 1 to 3600$/,
    }, bad);
  }
});
