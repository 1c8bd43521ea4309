import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Elysia } from "elysia";
import { svcPlugin } from "../../adapters/elysia.ts";
import { serve as bunServe } from "../../adapters/bun.ts";
import { serve as denoServe } from "../../adapters/deno.ts";
import { serve as nodeServe } from "../../adapters/node.ts";
import { notesSvc } from "../fixtures/notes_svc.ts";
import { runtime } from "../fixtures/runtime.ts";
import { checkOverSocket } from "../fixtures/socket_checks.ts";

test(`the Elysia plugin mounts /svc beside Elysia's own routes (on ${runtime})`, async () => {
  const svc = notesSvc();
  const app = new Elysia().use(svcPlugin(svc)).get("/hello", () => "app route");
  const serve = { bun: bunServe, deno: denoServe, node: nodeServe }[runtime];
  const server = await serve((req) => app.handle(req), { port: 0, hostname: "127.0.0.1" });
  try {
    await checkOverSocket(server.url);
  } finally {
    await server.close();
    await svc.close();
  }
});

test("only adapters/elysia.ts imports elysia, so a plain Bun, Deno or Node app never loads it", () => {
  for (const adapter of ["bun", "deno", "node"]) {
    const source = readFileSync(`adapters/${adapter}.ts`, "utf8");
    assert.doesNotMatch(source, /from "elysia"/, adapter);
  }
  assert.match(readFileSync("adapters/elysia.ts", "utf8"), /from "elysia"/);
});

test("the Elysia plugin routes the OAuth discovery URLs of /svc and leaves other /.well-known paths to the app", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const app = new Elysia().use(svcPlugin(svc)).get("/.well-known/security.txt", () => "app");
    const resource = await app.handle(new Request("http://app.test/.well-known/oauth-protected-resource/svc/mcp"));
    assert.equal((await resource.json()).resource, "http://app.test/svc/mcp");
    const server = await app.handle(new Request("http://app.test/.well-known/oauth-authorization-server/svc"));
    assert.equal((await server.json()).issuer, "http://app.test/svc");
    assert.equal(await (await app.handle(new Request("http://app.test/.well-known/security.txt"))).text(), "app");
  } finally {
    await svc.close();
  }
});
