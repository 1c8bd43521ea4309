// The Deno adapter's native server on its own parts: an `accept` that fails as Deno's does on EMFILE a few times,
// then accepts from a real listener on 127.0.0.1, each connection served by Deno's own HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nativeServer, serveOnConnection } from "../../../adapters/deno/native_server.ts";
import type { TcpConnection } from "../../../adapters/deno/tcp_connection.ts";
import { runtime } from "../../fixtures/runtime.ts";

const skip = runtime !== "deno" && "Deno's native HTTP serves Deno.Conn connections (Deno's adapter)";

/** The error Deno's `accept()` rejects with when the process is out of file descriptors. */
function tooManyOpenFiles(): Error {
  return Object.assign(new Error("Too many open files (os error 24)"), { name: "Busy", code: "EMFILE" });
}

/** A native server on `accept`, answering with `handle`, logging to `logged`. */
function start(
  accept: () => Promise<TcpConnection>,
  listener: Deno.Listener,
  logged: string[],
  handle: (req: Request, address: string | undefined) => Response,
) {
  const on = serveOnConnection()!;
  return nativeServer(
    {
      accept,
      closeListener: () => listener.close(),
      serveConnection: (conn, signal, handler) =>
        on(conn, signal, handler, () => new Response("", { status: 500 }), () => {}),
      openFileLimits: () => Deno.readTextFileSync("/proc/self/limits"),
    },
    handle,
    {},
    (message, error) => logged.push(`${message}${error ? `: ${(error as Error).message}` : ""}`),
  );
}

test(
  "nativeServer logs a failing accept once, backs off, and serves again once accept succeeds",
  { skip },
  async () => {
    const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
    let failures = 3;
    const accept = (): Promise<TcpConnection> =>
      failures-- > 0 ? Promise.reject(tooManyOpenFiles()) : listener.accept();
    const logged: string[] = [];
    const server = start(accept, listener, logged, () => new Response("served"));
    try {
      // The client waits in the listen backlog while accepting fails.
      const answer = await fetch(`http://127.0.0.1:${listener.addr.port}/`);
      assert.equal(await answer.text(), "served");
      assert.deepEqual(logged, [
        "accepting a connection failed (too many open files?); retrying: Too many open files (os error 24)",
        "accepting connections again after 3 failures",
      ]);
    } finally {
      await server.close(0);
    }
  },
);

test("nativeServer turns Nagle off on its connections and passes the client's address", { skip }, async () => {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const noDelay: boolean[] = [];
  const accept = async () => {
    const conn = await listener.accept() as Deno.TcpConn;
    const set = conn.setNoDelay.bind(conn);
    conn.setNoDelay = (on) => {
      noDelay.push(on ?? true);
      set(on);
    };
    return conn;
  };
  const server = start(accept, listener, [], (_req, address) => new Response(`from ${address}`));
  try {
    const answer = await fetch(`http://127.0.0.1:${listener.addr.port}/`);
    assert.equal(await answer.text(), "from 127.0.0.1");
    assert.deepEqual(noDelay, [true]);
  } finally {
    await server.close(0);
  }
});

test("nativeServer logs once that a WebSocket needs the relay (webSockets: true)", { skip }, async () => {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const logged: string[] = [];
  const upgrading = (req: Request) => Deno.upgradeWebSocket(req).response;
  const server = start(() => listener.accept(), listener, logged, upgrading);
  try {
    for (let i = 0; i < 2; i++) {
      const ws = new WebSocket(`ws://127.0.0.1:${listener.addr.port}/`);
      await new Promise((resolve) => [ws.onopen, ws.onerror, ws.onclose] = [resolve, resolve, resolve]);
      ws.close();
    }
    assert.deepEqual(logged, [
      "Deno cannot switch a natively served connection to a WebSocket: serve with { webSockets: true }",
    ]);
  } finally {
    await server.close(0);
  }
});
