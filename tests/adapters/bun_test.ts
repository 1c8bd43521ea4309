import { test } from "node:test";
import { Elysia } from "elysia";
import { withSvc } from "../../mod.ts";
import { serve as bunServe, svcPlugin } from "../../adapters/bun.ts";
import { serve as denoServe } from "../../adapters/deno.ts";
import { serve as nodeServe } from "../../adapters/node.ts";
import { notesSvc } from "../fixtures/notes_svc.ts";
import { runtime } from "../fixtures/runtime.ts";
import { checkOverSocket } from "../fixtures/socket_checks.ts";

test("adapters/bun serves /svc beside the app's own routes with Bun.serve", {
  skip: runtime !== "bun" && "Bun.serve exists only on Bun",
}, async () => {
  const svc = notesSvc();
  const server = await bunServe(
    withSvc(svc, (req) => new Response(new URL(req.url).pathname === "/hello" ? "app route" : "no")),
    { port: 0, hostname: "127.0.0.1" },
  );
  try {
    await checkOverSocket(server.url);
  } finally {
    await server.close();
    await svc.close();
  }
});

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
