// Bun.serve closes a connection whose answer takes longer than its idle
// timeout (10 s by its default), which would cut the cloud's 20 s long poll:
// adapters/bun sets it from ServeOptions.connections.idleTimeoutMs (60 s by
// default; Bun checks its idle timers every few seconds, hence the long
// waits here). Bun.serve has no connection cap; SECURITY.md says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serve } from "../../adapters/bun.ts";
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
