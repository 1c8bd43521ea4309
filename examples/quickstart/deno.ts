// Quick start on Deno: `deno run -A deno.ts` (README.md shows how to mint a key and run the intent).
import { z } from "zod";
import { createSvc, defineIntent, withSvc } from "@svc/agent-access";
import { serve } from "@svc/agent-access/adapters/deno";

// Your own sign-in goes here. This demo trusts a `session` cookie that names the user: never ship that.
const userResolver = (req: Request): string | null =>
  /(?:^|;\s*)session=(\w{1,64})/.exec(req.headers.get("cookie") ?? "")?.[1] ?? null;

const notes: { id: string; userId: string; title: string }[] = [];
const intents = [defineIntent({
  name: "notes.create",
  title: "Create a note",
  requiredScopes: ["notes:write"],
  input: z.object({ title: z.string().min(1) }),
  output: z.object({ id: z.string() }),
  handler: ({ title }, userId) => {
    const id = crypto.randomUUID();
    notes.push({ id, userId, title });
    return { id };
  },
})];

const svc = createSvc({
  userResolver,
  scopes: ["notes:read", "notes:write"],
  storage: "file:quickstart.db", // keys live here (libSQL: file:, :memory:, a Turso URL, or a Client)
  intents,
});
// Your app's own routes: everything outside /svc.
const myApp = (req: Request): Response => Response.json(notes.filter((n) => n.userId === userResolver(req)));

// /svc/* to the toolkit, the rest to your app.
// Listens on 127.0.0.1 only; pass hostname: "0.0.0.0" to listen on every interface.
const server = await serve(withSvc(svc, myApp), { port: Number(Deno.env.get("PORT") ?? 3000) });
console.log(`listening on ${server.url}`);
