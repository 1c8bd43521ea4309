// Bun.serve closes a connection whose answer takes longer than its idle
// timeout (10 s by its default), which would cut the cloud's 20 s long poll:
// adapters/bun sets it from ServeOptions.connections.idleTimeoutMs (60 s by
// default; Bun checks its idle timers every few seconds, hence the long
// waits here). Bun.serve has no connection cap nor a head timeout to set;
// SECURITY.md says so, and what Bun does on its own, checked below: a first
// request head must come whole within about 10 s, and a later request (head or
// body) that trickles in is closed after the idle timeout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serve } from "../../adapters/bun.ts";
import { assertTrickleClosed, echoBody, slowRequest, within } from "../fixtures/raw_http.ts";
import { runtime } from "../fixtures/runtime.ts";

const skip = runtime !== "bun" && "Bun.serve runs on Bun only";
const late = (ms: number) => () => new Promise<Response>((r) => setTimeout(() => r(new Response("late")), ms));

test(
  "adapters/bun answers a request that takes longer than Bun's own 10 s idle default, as a 20 s long poll does",
  { skip },
  async () => {
    const server = await serve(late(15_000), { port: 0, hostname: "127.0.0.1" });
    try {
      assert.equal(await (await fetch(server.url)).text(), "late");
    } finally {
      await server.close();
    }
  },
);

test("adapters/bun closes a connection silent for longer than connections.idleTimeoutMs", { skip }, async () => {
  const server = await serve(late(9_000), { port: 0, hostname: "127.0.0.1", connections: { idleTimeoutMs: 1_000 } });
  try {
    await assert.rejects(fetch(server.url).then((r) => r.text()));
  } finally {
    await server.close();
  }
});

/** A request head that takes 30 s at one byte every 100 ms. */
const LONG_HEAD = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${"a".repeat(260)}\r\n\r\n`;

test("Bun closes a connection whose first request head trickles in, within about 10 s, whatever the idle timeout", {
  skip,
}, async () => {
  const server = await serve(() => new Response("ok"), { port: 0, hostname: "127.0.0.1" }); // idle: 60 s
  const slow = slowRequest(server.port, "", "", LONG_HEAD, 100);
  try {
    assert.equal(await within(slow.closed, 25_000), true, "the trickling connection was closed");
  } finally {
    slow.stop();
    await server.close();
  }
});

test("Bun closes a kept-alive connection whose next request trickles in, after connections.idleTimeoutMs", {
  skip,
}, async () => {
  const server = await serve(echoBody, { port: 0, hostname: "127.0.0.1", connections: { idleTimeoutMs: 2_000 } });
  const get = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const post = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 300\r\n\r\n";
  const slowHead = slowRequest(server.port, get, "", LONG_HEAD, 100);
  const slowBody = slowRequest(server.port, get, post, "b".repeat(300), 100);
  try {
    for (const slow of [slowHead, slowBody]) await assertTrickleClosed(slow, 15_000);
  } finally {
    slowHead.stop();
    slowBody.stop();
    await server.close();
  }
});
