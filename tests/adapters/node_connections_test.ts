// Issue 13, finding 3 on Node: adapters/node applies ServeOptions.connections
// to Node's server: past maxConnections a new connection is closed while the
// ones held are served, and the server takes new ones once some close; a
// request head that does not arrive in time, a kept-alive connection's next
// request that does not, and a silent connection, are closed.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { serve } from "../../adapters/node.ts";
import { assertTrickleClosed, echoBody, keepAlive, slowRequest, within } from "../fixtures/raw_http.ts";
import { runtime } from "../fixtures/runtime.ts";
import { waitFor } from "../fixtures/wait_for.ts";

const hello = () => new Response("hello");
const skip = runtime !== "node" &&
  "Node's own server (Deno's and Bun's node:http differ; they have their own adapters)";

/** Opens a connection and sends a partial request head; `closed` settles when the server ends or closes it. */
function slowHead(port: number): { socket: Socket; closed: Promise<void> } {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.once("connect", () => socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")); // never the blank line
  // Read what the server sends (its 408): a paused socket holding unread data never sees the server's end.
  socket.resume();
  const closed = new Promise<void>((resolve) => {
    socket.once("end", () => resolve());
    socket.once("close", () => resolve());
  });
  return { socket, closed };
}

describe("adapters/node's connection limits", { skip }, () => {
  test("past maxConnections a new connection is closed, the held ones are served, and the server recovers", async () => {
    const server = await serve(hello, { port: 0, hostname: "127.0.0.1", connections: { maxConnections: 3 } });
    const held = await Promise.all([1, 2, 3].map(() => keepAlive(server.port)));
    const extra = await keepAlive(server.port);
    try {
      for (const c of held) assert.equal(await c.get(), "hello");
      assert.equal(await within(extra.closed, 5_000), true, "the connection past the cap was closed");
      await assert.rejects(extra.get(), /closed/);
      for (const c of held) assert.equal(await c.get(), "hello", "the held connections are still served");
      held.pop()!.close();
      // A new connection is served once one has closed.
      await waitFor("a new connection to be served once one has closed", async () => {
        const answer = await fetch(server.url, { headers: { connection: "close" } }).then((r) => r.text(), () => "");
        return answer === "hello";
      });
    } finally {
      for (const c of [...held, extra]) c.close();
      await server.close();
    }
  });

  test("a request head that does not arrive within headerTimeoutMs is closed, and so is a silent connection", async () => {
    // Node counts a connection's head time from its accept: the requests this test expects answered (the kept-alive
    // one's first, the last fetch) have theirs sent at once, but a loaded machine that pauses this process (client and
    // server both) between the accept and the read of the head for longer than a short bound (300 ms was) gets them a
    // 408, or the idle timeout closes them.
    const server = await serve(hello, {
      port: 0,
      hostname: "127.0.0.1",
      connections: { headerTimeoutMs: 1_000, idleTimeoutMs: 1_000 },
    });
    let idle: Awaited<ReturnType<typeof keepAlive>> | undefined;
    let slow: ReturnType<typeof slowHead> | undefined;
    try {
      slow = slowHead(server.port);
      assert.equal(await within(slow.closed, 5_000), true, "the slow head was closed");
      idle = await keepAlive(server.port);
      assert.equal(await idle.get(), "hello");
      assert.equal(await within(idle.closed, 5_000), true, "the silent connection was closed");
      assert.equal(await (await fetch(server.url)).text(), "hello");
    } finally {
      idle?.close();
      slow?.socket.destroy();
      await server.close();
    }
  });

  test("a kept-alive connection whose next request does not arrive whole within requestTimeoutMs is closed", async () => {
    const server = await serve(echoBody, {
      port: 0,
      hostname: "127.0.0.1",
      connections: { headerTimeoutMs: 1_000, requestTimeoutMs: 1_000 }, // the first request's head: as above
    });
    const head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 300\r\n\r\n";
    const slow = slowRequest(server.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", head, "b".repeat(300), 100);
    try {
      await assertTrickleClosed(slow);
    } finally {
      slow.stop();
      await server.close();
    }
  });
});
