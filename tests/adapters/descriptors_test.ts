// @slow: subprocesses
// Issue 13, finding 3: the Deno adapter survives file-descriptor exhaustion
// (refuses, logs, recovers), closes slow-header connections, and caps
// concurrent connections. The server runs as a Deno subprocess under a low
// `ulimit -n`; the test drives it with raw sockets on 127.0.0.1.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { runtime } from "../fixtures/runtime.ts";
import { repoRoot } from "../fixtures/subprocess.ts";
import { waitFor } from "../fixtures/wait_for.ts";

const server = fileURLToPath(new URL("../fixtures/guarded_server.ts", import.meta.url));
const deno = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));
const skip = runtime !== "deno" && "the Deno adapter is tested from Deno (it spawns Deno itself)";

interface Running {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  stderr(): string;
}

function startServer(openFiles: number, limits: Record<string, number> = {}): Promise<Running> {
  const child = spawn("bash", ["-c", `ulimit -n ${openFiles}; exec "${deno}" run -A "${server}"`], {
    cwd: repoRoot,
    env: { ...process.env, SVC_TEST_LIMITS: JSON.stringify(limits), NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d) => err += d);
  const exited = new Promise<number | null>((r) => child.on("close", r));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), exited, stderr: () => err });
    });
    exited.then((code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.once("connect", () => resolve(socket));
    socket.once("close", () => resolve(socket));
  });
}

/** Whether the server has closed (or reset) the socket. */
function closedByServer(socket: net.Socket): boolean {
  return socket.destroyed || socket.readableEnded;
}

/**
 * A connection the server has taken and still holds: one request answered on it, kept alive. An answer is what
 * shows from outside that the server accepted the connection (and counts it against its cap).
 */
async function answered(port: number): Promise<net.Socket> {
  const socket = await connect(port);
  let seen = "";
  socket.on("data", (d) => seen += d);
  socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  await waitFor("an answer on a held connection", () => /^HTTP\/1\.1 200[\s\S]*\r\n\r\nok$/.test(seen));
  return socket;
}

/** Resolves `true` when the server closes the socket, `false` if it is still open after `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.once("end", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function get(port: number): Promise<number | string> {
  return await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text().then(() => r.status), (e) => String(e));
}

describe("the Deno adapter's socket policy", { skip }, () => {
  test("survives more connections than open files allow, then serves again", async () => {
    const s = await startServer(256);
    try {
      const sockets = await Promise.all(Array.from({ length: 400 }, () => connect(s.port)));
      for (const socket of sockets) socket.resume(); // so a close by the server ends the socket
      // The open-file limit sets the connection cap; the server holds that many and closes every one after.
      const over = await waitFor(
        "the server to refuse connections over its cap",
        () => /over (\d+) connections/.exec(s.stderr()),
      );
      const refused = sockets.length - Number(over[1]);
      await waitFor(
        `the server to close the ${refused} connections over its cap`,
        () => sockets.filter(closedByServer).length >= refused,
      );
      for (const socket of sockets) socket.destroy();
      await waitFor("the server to answer 200 again", async () => await get(s.port) === 200).catch((error) => {
        assert.fail(`${error.message} (${s.stderr().slice(0, 300)})`);
      });
      assert.equal(s.child.exitCode, null, "the server is still running");
    } finally {
      s.child.kill();
      await s.exited;
    }
  });

  test("closes a connection whose request head does not arrive in time", async () => {
    const s = await startServer(1024, { headerTimeoutMs: 300 });
    try {
      const socket = await connect(s.port);
      socket.write("GET / HTTP/1.1\r\nHost: x\r\n"); // and never the blank line
      assert.equal(await closedWithin(socket, 10_000), true, "the slow-header connection was closed");
      assert.equal(await get(s.port), 200);
    } finally {
      s.child.kill();
      await s.exited;
    }
  });

  test("refuses connections over the cap and takes new ones once some close", async () => {
    const s = await startServer(1024, { maxConnections: 5 });
    try {
      const held = await Promise.all(Array.from({ length: 5 }, () => answered(s.port)));
      const extra = await connect(s.port);
      assert.equal(await closedWithin(extra, 10_000), true, "the sixth connection was closed");
      for (const socket of held) socket.destroy();
      await waitFor("a new connection to be served once the held ones closed", async () => await get(s.port) === 200);
    } finally {
      s.child.kill();
      await s.exited;
    }
  });
});
