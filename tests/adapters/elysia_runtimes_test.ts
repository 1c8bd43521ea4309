// Which way of serving an Elysia app with the plugin works on which runtime, over real sockets: `app.fetch` through
// the toolkit's adapter works on Bun, Deno and Node; Elysia's own `.listen()` only on Bun (Elysia's default adapter
// elsewhere is WebStandard, which cannot listen; on Node it needs @elysiajs/node, which this package does not use).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Elysia } from "elysia";
import { svcPlugin } from "../../adapters/elysia.ts";
import { serve as bunServe } from "../../adapters/bun.ts";
import { serve as denoServe } from "../../adapters/deno.ts";
import { serve as nodeServe } from "../../adapters/node.ts";
import { clientAddress } from "../../mod.ts";
import { runtime } from "../fixtures/runtime.ts";

/** A stand-in for `createSvc(...)`: it answers with the caller's address as the toolkit sees it. */
const echoAddress = {
  handle: (req: Request) => Promise.resolve(new Response(`${new URL(req.url).pathname} from ${clientAddress(req)}`)),
};

test(`an Elysia app with svcPlugin, its app.fetch served by adapters/${runtime}, answers /svc and its own routes`, async () => {
  const app = new Elysia().use(svcPlugin(echoAddress)).get("/", () => "app");
  const serve = { bun: bunServe, deno: denoServe, node: nodeServe }[runtime];
  const server = await serve(app.fetch, { port: 0 }); // passed unbound, as a quick start would
  try {
    assert.equal(await (await fetch(`${server.url}/`)).text(), "app");
    assert.equal(await (await fetch(`${server.url}/svc/agent/intents`)).text(), "/svc/agent/intents from 127.0.0.1");
  } finally {
    await server.close();
  }
});

test(`Elysia's own listen() ${runtime === "bun" ? "serves the plugin" : "is refused"} on ${runtime}`, async () => {
  const app = new Elysia().use(svcPlugin(echoAddress)).get("/", () => "app");
  if (runtime !== "bun") {
    assert.throws(() => app.listen({ port: 0, hostname: "127.0.0.1" }), /WebStandard does not support listen/);
    return;
  }
  app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    const url = `http://127.0.0.1:${app.server!.port}`;
    assert.equal(await (await fetch(`${url}/svc/keys`)).text(), "/svc/keys from 127.0.0.1");
  } finally {
    await app.stop();
  }
});
