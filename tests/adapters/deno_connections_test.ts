// @slow: real socket timeouts of both of the Deno adapter's servers, each waited out on the wall clock
// Issue 13, finding 3 on Deno, for both of adapters/deno's servers: the native one (the default: its own
// connections served by Deno's HTTP) and the relay (with `webSockets: true`). Each closes a kept-alive connection
// that trickles its next head (the relay after the head timeout, the native one after its keep-alive bound) or a
// body (also after a head over 64 KiB), ignores an empty line between requests, and closes a silent connection.
// The relay leaves WebSockets to the idle timeout and refuses cleartext HTTP/2; the native server serves it.
// Short limits through ServeOptions.connections.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { connect as connectHttp2 } from "node:http2";
import { serve } from "../../adapters/deno.ts";
import { assertTrickleClosed, echoBody, keepAlive, slowRequest, within } from "../fixtures/raw_http.ts";
import { runtime } from "../fixtures/runtime.ts";

const skip = runtime !== "deno" && "Deno.serve exists only on Deno";
const ok = () => new Response("ok");
const GET = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
/** A request head that takes 30 s at one byte every 100 ms. */
const LONG_HEAD = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${"a".repeat(260)}\r\n\r\n`;

for (const [path, webSockets] of [["native", false], ["relay", true]] as const) {
  describe(`adapters/deno's timeouts on kept-alive connections (${path})`, { skip }, () => {
    test("a kept-alive connection that trickles its next request head is closed (relay: headerTimeoutMs; native: the keep-alive bound)", async () => {
      const server = await serve(ok, {
        port: 0,
        hostname: "127.0.0.1",
        webSockets,
        connections: { headerTimeoutMs: 500, idleTimeoutMs: 1_000 },
      });
      const slow = slowRequest(server.port, GET, "", LONG_HEAD, 100);
      try {
        await assertTrickleClosed(slow);
        assert.equal(await (await fetch(server.url)).text(), "ok");
      } finally {
        slow.stop();
        await server.close();
      }
    });

    test("a kept-alive connection that trickles a request body is closed after requestTimeoutMs", async () => {
      const server = await serve(echoBody, {
        port: 0,
        hostname: "127.0.0.1",
        webSockets,
        connections: { headerTimeoutMs: 300, requestTimeoutMs: 1_000 },
      });
      const head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 300\r\n\r\n";
      const slow = slowRequest(server.port, GET, head, "b".repeat(300), 100);
      try {
        await assertTrickleClosed(slow);
      } finally {
        slow.stop();
        await server.close();
      }
    });

    test("a 70 KiB head declaring a 999999999-byte body, then a trickled body, is closed by requestTimeoutMs at the latest", async () => {
      const server = await serve(echoBody, {
        port: 0,
        hostname: "127.0.0.1",
        webSockets,
        connections: { headerTimeoutMs: 500, requestTimeoutMs: 1_500 },
      });
      const pad = `X-Pad: ${"a".repeat(70 * 1024)}\r\n`;
      const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n${pad}Content-Length: 999999999\r\n\r\n`;
      // A body that would pass for short requests (each within the head timeout) if the head were misread.
      // Deno.serve 2.9 refuses a head over 64 KiB (400) and closes; the relay must not depend on it.
      const slow = slowRequest(server.port, "", head, "a\r\n\r\n".repeat(100), 50);
      try {
        assert.equal(await within(slow.closed, 5_000), true, "the trickling connection was closed");
      } finally {
        slow.stop();
        await server.close();
      }
    });

    test("a connection that ends a body with an extra CRLF is left to idleTimeoutMs, not headerTimeoutMs", async () => {
      const server = await serve(async (req) => new Response(await req.text()), {
        port: 0,
        hostname: "127.0.0.1",
        webSockets,
        connections: { headerTimeoutMs: 200, requestTimeoutMs: 200, idleTimeoutMs: 1_500 },
      });
      const post = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi\r\n";
      const slow = slowRequest(server.port, post, "", "", 50);
      try {
        assert.equal(await within(slow.answered, 5_000), true, "the post is answered");
        assert.equal(await within(slow.closed, 600), false, "not closed by the head timeout");
        assert.equal(await within(slow.closed, 5_000), true, "the silent connection was closed");
      } finally {
        slow.stop();
        await server.close();
      }
    });

    test("a connection quiet between requests outlives the head and request timeouts, then idleTimeoutMs closes it", async () => {
      const server = await serve(ok, {
        port: 0,
        hostname: "127.0.0.1",
        webSockets,
        connections: { headerTimeoutMs: 200, requestTimeoutMs: 200, idleTimeoutMs: 1_500 },
      });
      const connection = await keepAlive(server.port);
      try {
        assert.equal(await connection.get(), "ok");
        assert.equal(await within(connection.closed, 600), false, "not closed by the head or request timeout");
        assert.equal(await connection.get(), "ok", "the next request on it is answered");
        assert.equal(await within(connection.closed, 5_000), true, "the silent connection was closed");
      } finally {
        connection.close();
        await server.close();
      }
    });

    test(
      "a WebSocket outlives the head and request timeouts",
      { skip: !webSockets && "only the relay upgrades" },
      async () => {
        const echoing = (req: Request) => {
          const { socket, response } = Deno.upgradeWebSocket(req);
          socket.onmessage = (event) => socket.send(event.data);
          return response;
        };
        const server = await serve(echoing, {
          port: 0,
          hostname: "127.0.0.1",
          webSockets,
          connections: { headerTimeoutMs: 200, requestTimeoutMs: 200 },
        });
        const ws = new WebSocket(server.url.replace("http", "ws"));
        const closed = new Promise<void>((r) => ws.onclose = () => r());
        try {
          await new Promise((resolve, reject) => [ws.onopen, ws.onerror] = [resolve, reject]);
          const echo = (text: string) => {
            const echoed = new Promise((r) => ws.onmessage = (event) => r(event.data));
            ws.send(text);
            return echoed;
          };
          assert.equal(await echo("hello"), "hello"); // frames, not a request head: nothing may time them
          assert.equal(await within(closed, 800), false, "open past both timeouts");
          assert.equal(await echo("still there"), "still there");
        } finally {
          ws.close();
          await closed;
          await server.close();
        }
      },
    );

    test("cleartext HTTP/2 (prior knowledge), which the relay cannot time, is refused", {
      skip: !webSockets && "relay",
    }, async () => {
      const server = await serve(ok, { port: 0, hostname: "127.0.0.1", webSockets });
      const socket = connect(server.port, "127.0.0.1");
      let received = 0;
      socket.on("data", (d) => received += d.length);
      socket.on("error", () => {});
      const closed = new Promise<void>((r) => socket.once("close", () => r()));
      try {
        socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        assert.equal(await within(closed, 5_000), true, "the connection was closed");
        assert.equal(received, 0, "nothing was answered");
      } finally {
        socket.destroy();
        await server.close();
      }
    });

    test("cleartext HTTP/2 (prior knowledge) is served natively, and a silent one is closed after idleTimeoutMs", {
      skip: webSockets && "native",
    }, async () => {
      const server = await serve(ok, {
        port: 0,
        hostname: "127.0.0.1",
        connections: { headerTimeoutMs: 200, requestTimeoutMs: 200, idleTimeoutMs: 1_000 },
      });
      const session = connectHttp2(server.url);
      session.on("error", () => {});
      const closed = new Promise<void>((r) => session.once("close", () => r()));
      try {
        const stream = session.request({ ":path": "/" });
        let text = "";
        stream.setEncoding("utf8");
        stream.on("data", (d: string) => text += d);
        await new Promise<void>((resolve) => stream.on("end", () => resolve()));
        assert.equal(text, "ok");
        assert.equal(await within(closed, 5_000), true, "the silent connection was closed");
      } finally {
        session.destroy();
        await server.close();
      }
    });
  });
}
