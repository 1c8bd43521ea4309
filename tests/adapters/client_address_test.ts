// Every adapter tells the toolkit who the client is: a Web Request carries no
// address, so each adapter records the peer's (Bun: server.requestIP; Deno:
// the relay's accepted connection, found by the port the inner server sees;
// Node: srvx's request.ip; Elysia: what its server gives) for clientAddress().
import { test } from "node:test";
import assert from "node:assert/strict";
import { Elysia } from "elysia";
import { clientAddress } from "../../core/http/mod.ts";
import { serve as nodeServe } from "../../adapters/node.ts";
import { svcPlugin } from "../../adapters/elysia.ts";
import { listen } from "../fixtures/servers.ts";
import { runtime } from "../fixtures/runtime.ts";
import { keepAlive } from "../fixtures/raw_http.ts";

const echoAddress = (req: Request) => new Response(clientAddress(req) ?? "none");

test(`${runtime}'s adapter records the real peer of each connection, also with several open at once`, async () => {
  const server = await listen(echoAddress);
  try {
    assert.equal(await (await fetch(server.url)).text(), "127.0.0.1");
    const one = await keepAlive(server.port, "127.0.0.1");
    const two = await keepAlive(server.port, "127.0.0.2");
    try {
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await Promise.all([one.get(), two.get()]), ["127.0.0.1", "127.0.0.2"], `round ${i + 1}`);
      }
    } finally {
      one.close();
      two.close();
    }
  } finally {
    await server.close();
  }
});

test(`adapters/node records srvx's request.ip (on ${runtime})`, {
  skip: runtime === "deno" && "on Deno, use adapters/deno",
}, async () => {
  const server = await nodeServe(echoAddress, { port: 0, hostname: "127.0.0.1" });
  try {
    assert.equal(await (await fetch(server.url)).text(), "127.0.0.1");
  } finally {
    await server.close();
  }
});

test(`the Elysia plugin passes the address on, served by the toolkit's adapter (on ${runtime})`, async () => {
  const app = new Elysia().use(svcPlugin({ handle: (req) => Promise.resolve(echoAddress(req)) }));
  const server = await listen((req) => app.handle(req));
  try {
    assert.equal(await (await fetch(`${server.url}/svc/who`)).text(), "127.0.0.1");
  } finally {
    await server.close();
  }
});

test("the Elysia plugin asks Bun's server for the address under app.listen()", {
  skip: runtime !== "bun" && "app.listen() serves with Bun.serve on Bun only",
}, async () => {
  const app = new Elysia().use(svcPlugin({ handle: (req) => Promise.resolve(echoAddress(req)) }));
  app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    assert.equal(await (await fetch(`http://127.0.0.1:${app.server!.port}/svc/who`)).text(), "127.0.0.1");
  } finally {
    await app.stop(true);
  }
});
