import { test } from "node:test";
import { withSvc } from "../../mod.ts";
import { serve as bunServe } from "../../adapters/bun.ts";
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
