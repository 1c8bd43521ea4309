// Quick start with Elysia on Node 22+ or Deno: `node elysia_node.ts` (on Deno, import `serve` from
// "@svc/agent-access/adapters/deno" instead, then `deno run -A elysia_node.ts`).
// Elysia's own `.listen()` works on Bun only; here the toolkit's adapter serves `app.fetch`.
import { Elysia } from "elysia";
import { z } from "zod";
import { createSvc, defineIntent } from "@svc/agent-access";
import { svcPlugin } from "@svc/agent-access/adapters/elysia"; // the only entry point that loads elysia
import { serve } from "@svc/agent-access/adapters/node";

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

const app = new Elysia()
  .use(svcPlugin(svc)) // adds /svc and /svc/*
  .get("/", ({ request }) => notes.filter((n) => n.userId === userResolver(request))); // your app's own routes
// Listens on 127.0.0.1 only; pass hostname: "0.0.0.0" to listen on every interface.
const server = await serve(app.fetch, { port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${server.url}`);
