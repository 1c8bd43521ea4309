import { test } from "node:test";
import assert from "node:assert/strict";
import { withSvc } from "../../mod.ts";
import { serve } from "../../adapters/deno.ts";
import { notesSvc } from "../fixtures/notes_svc.ts";
import { runtime } from "../fixtures/runtime.ts";
import { appRoute, checkOverSocket } from "../fixtures/socket_checks.ts";

test("adapters/deno serves /svc beside the app's own routes over a socket", {
  skip: runtime !== "deno" && "Deno.serve exists only on Deno",
}, async () => {
  const svc = notesSvc();
  const server = await serve(withSvc(svc, appRoute), { port: 0, hostname: "127.0.0.1" });
  try {
    await checkOverSocket(server.url);
  } finally {
    await server.close();
    await svc.close();
  }
});

test("adapters/deno relays bodies much larger than its buffer, both ways, byte for byte", {
  skip: runtime !== "deno" && "Deno.serve exists only on Deno",
}, async () => {
  const echo = async (req: Request) => new Response(new Uint8Array(await req.arrayBuffer()).reverse());
  const server = await serve(echo, { port: 0, hostname: "127.0.0.1" });
  try {
    const sent = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
    for (let round = 0; round < 3; round++) { // on one kept-alive connection, request after request
      const res = await fetch(server.url, { method: "POST", body: sent });
      const got = new Uint8Array(await res.arrayBuffer());
      assert.equal(got.byteLength, sent.byteLength);
      assert.deepEqual(got.reverse(), sent);
    }
  } finally {
    await server.close();
  }
});
