// relayServer keeps its inner server: one that stops on an error (as Deno.serve
// does when descriptors run out) is started again, retried while it cannot
// start, and the relay connects to the new one. Failures are injected through
// RelayParts.start; the servers and sockets are real, on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { type RelayParts, relayServer, type StartedServer } from "../../../adapters/deno/relay_server.ts";
import { runtime } from "../../fixtures/runtime.ts";

const skip = runtime !== "deno" && "the relay runs Deno.serve behind Deno.listen (Deno's adapter)";

/** The error Deno gives when the process is out of file descriptors. */
function tooManyOpenFiles(): Error {
  return Object.assign(new Error("Too many open files (os error 24)"), { code: "EMFILE" });
}

test(
  "relayServer starts its inner server again after it stops on an error, retrying while it cannot start",
  { skip },
  async () => {
    const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
    const failFirst = Promise.withResolvers<void>();
    const thirdStarted = Promise.withResolvers<void>();
    const servers: Deno.HttpServer[] = [];
    let starts = 0;
    const parts: RelayParts = {
      accept: () => listener.accept(),
      closeListener: () => listener.close(),
      connect: (port) => Deno.connect({ hostname: "127.0.0.1", port }),
      start(): StartedServer {
        const n = ++starts;
        if (n === 2) throw tooManyOpenFiles(); // cannot start again at once
        const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response(`server ${n}`));
        servers.push(server);
        if (n === 3) thirdStarted.resolve();
        // The first one "stops on an error" when the test says so (and is then shut down).
        const finished = n === 1 ? failFirst.promise : server.finished;
        return { port: server.addr.port, finished, shutdown: () => server.shutdown() };
      },
      openFileLimits: () => {
        throw new Error("no /proc here");
      },
    };
    const logged: string[] = [];
    const relay = relayServer(parts, {}, (message) => logged.push(message));
    const url = `http://127.0.0.1:${listener.addr.port}/`;
    try {
      assert.equal(await (await fetch(url)).text(), "server 1");
      failFirst.reject(tooManyOpenFiles());
      await servers[0].shutdown();
      await thirdStarted.promise;
      assert.equal(await (await fetch(url, { headers: { connection: "close" } })).text(), "server 3");
      assert.deepEqual(logged, [
        "the server stopped on an error; starting it again",
        "the server could not start again; retrying",
      ]);
    } finally {
      await relay.close();
    }
  },
);
