import { test } from "node:test";
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
