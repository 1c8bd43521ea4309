// @slow: real servers on sockets, closed under kept-alive traffic and a request that never ends
// Each runtime's adapter: `close(timeoutMs)` answers with `Connection: close` from then on (a request in flight
// included), closes kept-alive connections, and settles past a request that never ends, whatever clients do (on Deno
// the request that never ends is answered 503 as its connection closes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { keptAliveClient } from "../fixtures/kept_alive_client.ts";
import { listen } from "../fixtures/servers.ts";
import { settlesWithin, waitFor } from "../fixtures/wait_for.ts";
import { runtime } from "../fixtures/runtime.ts";

/** Far more than the timeout under test: a close still pending this long failed the test. */
const GUARD_MS = 20_000;
/** More requests than a client can send before the guard. */
const BUDGET = 10_000_000;

test("close(timeoutMs) marks answers Connection: close, closes kept-alive connections and settles past a request that never ends", async () => {
  const never = Promise.withResolvers<Response>(); // never settled: a handler that never answers
  const slow = Promise.withResolvers<void>();
  const server = await listen(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/never") return never.promise;
    if (path === "/slow") await slow.promise;
    return new Response("ok");
  });
  const head = (path: string) => `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${server.port}`;
  const idle = keptAliveClient(server.port, [head("/ok")], 1); // answered, then idle on its connection
  const inFlight = keptAliveClient(server.port, [head("/slow")], 1);
  const stuck = keptAliveClient(server.port, [head("/never")], 1);
  const busy = keptAliveClient(server.port, [head("/ok")], BUDGET); // never pauses
  const clients = [idle, inFlight, stuck, busy];
  try {
    await waitFor(
      "every client to have asked, the busy one answered often",
      () => idle.statuses.length === 1 && inFlight.sent === 1 && stuck.sent === 1 && busy.statuses.length >= 20,
    );
    const closing = server.close(300);
    slow.resolve(); // answered while the server closes
    await settlesWithin(closing, GUARD_MS, "close(300) with a request that never ends");
    for (const client of clients) await settlesWithin(client.closed, GUARD_MS, "a connection's end");
    assert.deepEqual(inFlight.statuses, [200]);
    assert.equal(inFlight.connectionHeaders[0], "close", "the answer in flight at close says Connection: close");
    assert.ok(busy.sent < BUDGET, "the busy client could not keep its connection");
    // Node and Bun close its socket; Deno closes a connection only once its request has an answer: 503.
    assert.deepEqual(
      stuck.statuses,
      runtime === "deno" ? [503] : [],
      "the request that never ends lost its connection",
    );
  } finally {
    for (const client of clients) client.close();
  }
});
