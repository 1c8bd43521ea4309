// The connection guard's way through descriptor exhaustion, without exhausting
// descriptors: its `accept` parameter fails as Deno's does on EMFILE a few
// times, then accepts from a real listener on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { guardConnections } from "../../../adapters/deno/connection_guard.ts";
import type { TcpConnection } from "../../../adapters/deno/tcp_connection.ts";
import { runtime } from "../../fixtures/runtime.ts";

const skip = runtime !== "deno" && "the guard relays Deno.Conn connections (Deno's adapter)";

/** The error Deno's `accept()` rejects with when the process is out of file descriptors. */
function tooManyOpenFiles(): Error {
  return Object.assign(new Error("Too many open files (os error 24)"), { name: "Busy", code: "EMFILE" });
}

test(
  "guardConnections logs a failing accept once, backs off, and relays again once accept succeeds",
  { skip },
  async () => {
    const inner = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response("served"));
    const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
    const attempts: number[] = [];
    let failures = 3;
    const accept = (): Promise<TcpConnection> => {
      attempts.push(performance.now());
      return failures-- > 0 ? Promise.reject(tooManyOpenFiles()) : listener.accept();
    };
    const logged: string[] = [];
    const guard = guardConnections(
      accept,
      () => Deno.connect({ hostname: "127.0.0.1", port: inner.addr.port }),
      {},
      (message, error) => logged.push(`${message}${error ? `: ${(error as Error).message}` : ""}`),
    );
    try {
      // The client waits in the listen backlog while accepting fails.
      const answer = await fetch(`http://127.0.0.1:${listener.addr.port}/`);
      assert.equal(await answer.text(), "served");
      assert.deepEqual(logged, [
        "accepting a connection failed (too many open files?); retrying: Too many open files (os error 24)",
        "accepting connections again after 3 failures",
      ]);
      const waits = attempts.slice(1, 4).map((at, i) => at - attempts[i]);
      waits.forEach((waited, i) => assert.ok(waited >= 25 * 2 ** i - 2, `backoff ${i}: ${waited} ms`));
    } finally {
      guard.stopAccepting();
      listener.close();
      await guard.close(0);
      await inner.shutdown();
    }
  },
);

test("guardConnections turns Nagle off on the client's connection and on its own to the server", { skip }, async () => {
  const inner = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response("served"));
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const noDelay: string[] = [];
  /** The connection, telling `noDelay` when it is set (as `side`). */
  const told = (conn: Deno.TcpConn, side: string): TcpConnection => {
    const set = conn.setNoDelay.bind(conn);
    conn.setNoDelay = (on) => {
      noDelay.push(`${side} ${on}`);
      set(on);
    };
    return conn;
  };
  const guard = guardConnections(
    async () => told(await listener.accept() as Deno.TcpConn, "client"),
    async () => told(await Deno.connect({ hostname: "127.0.0.1", port: inner.addr.port }), "server"),
    {},
    () => {},
  );
  try {
    const answer = await fetch(`http://127.0.0.1:${listener.addr.port}/`);
    assert.equal(await answer.text(), "served");
    assert.deepEqual(noDelay, ["client true", "server true"]);
  } finally {
    guard.stopAccepting();
    listener.close();
    await guard.close(0);
    await inner.shutdown();
  }
});
