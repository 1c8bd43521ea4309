import { test } from "node:test";
import { withSvc } from "../../mod.ts";
import { serve } from "../../adapters/node.ts";
import { notesSvc } from "../fixtures/notes_svc.ts";
import { runtime } from "../fixtures/runtime.ts";
import { appRoute, checkOverSocket } from "../fixtures/socket_checks.ts";

test(`adapters/node serves /svc beside the app's own routes through srvx (on ${runtime})`, {
  // Deno's node:http keeps idle keep-alive sockets open on close() for seconds; Deno apps use adapters/deno.
  skip: runtime === "deno" && "on Deno, use adapters/deno",
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

test("withSvc answers other paths with the 404 envelope when the app has no handler", async () => {
  const svc = notesSvc();
  const res = await withSvc(svc)(new Request("http://x/elsewhere"));
  if (res.status !== 404 || (await res.json()).error.code !== "NOT_FOUND") throw new Error("expected 404 envelope");
  await svc.close();
});
