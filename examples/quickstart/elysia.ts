// Quick start with Elysia on Bun: `bun elysia.ts` (README.md shows how to mint a key and run the intent).
import { Elysia } from "elysia";
import { z } from "zod";
import { createSvc, defineIntent } from "@svc/agent-access";
import { svcPlugin } from "@svc/agent-access/adapters/elysia"; // the only entry point that loads elysia

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

const port = Number(process.env.PORT ?? 3000);
new Elysia()
  .use(svcPlugin(svc)) // adds /svc and /svc/*
  .get("/", ({ request }) => notes.filter((n) => n.userId === userResolver(request))) // your app's own routes
  .listen({ port, hostname: "127.0.0.1" }); // hostname: "0.0.0.0" listens on every interface
console.log(`listening on http://127.0.0.1:${port}`);
