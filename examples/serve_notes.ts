// `npm start`: the notes app on Deno, its data in file:./data/app.db, and a
// walk-through of /svc printed as curl lines.
import { mkdirSync } from "node:fs";
import { serve } from "../adapters/deno.ts";
import { createNotesApp } from "./notes_app.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
mkdirSync("./data", { recursive: true });
const app = await createNotesApp("file:./data/app.db");
const server = await serve(app.fetch, { port, hostname: "127.0.0.1" });
const u = server.url;
const json = `-H 'content-type: application/json'`;
const field = (name: string) => `sed -E 's/.*"${name}":"([^"]+)".*/\\1/'`;

console.log(`
Notes app with agent access on ${u} (data in ./data/app.db). Ctrl-C stops it.

1. Sign in as the demo user alice and mint an agent key that may read and write notes (shown once):
   MINTED=$(curl -s -X POST ${u}/svc/keys -b session=alice ${json} -d '{"name":"my agent","scopes":["notes:read","notes:write"]}'); echo $MINTED
   KEY=$(echo $MINTED | ${field("key")}); KEY_ID=$(echo $MINTED | ${field("id")})

2. List alice's keys (the secret is never shown again, only its start):
   curl -s ${u}/svc/keys -b session=alice

3. As the agent, list the intents and which ones this key may run:
   curl -s ${u}/svc/agent/intents -H "authorization: Bearer $KEY"

4. Run an intent that works:
   curl -s -X POST ${u}/svc/agent/run -H "authorization: Bearer $KEY" ${json} -d '{"intent":"notes.create","payload":{"title":"Buy milk"}}'
   curl -s -X POST ${u}/svc/agent/run -H "authorization: Bearer $KEY" ${json} -d '{"intent":"notes.list"}'

5. One refused for scope (403 FORBIDDEN_SCOPE: the key lacks notes:delete):
   curl -s -X POST ${u}/svc/agent/run -H "authorization: Bearer $KEY" ${json} -d '{"intent":"notes.delete","payload":{"id":"00000000-0000-4000-8000-000000000000"}}'

6. One refused for schema (400 INTENT_VALIDATION_ERROR: title is required):
   curl -s -X POST ${u}/svc/agent/run -H "authorization: Bearer $KEY" ${json} -d '{"intent":"notes.create","payload":{}}'

7. Revoke the key; the very next run answers 401 UNAUTHORIZED:
   curl -s -X DELETE ${u}/svc/keys/$KEY_ID -b session=alice
   curl -s -X POST ${u}/svc/agent/run -H "authorization: Bearer $KEY" ${json} -d '{"intent":"notes.list"}'
`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.close();
    await app.close();
    Deno.exit(0);
  });
}
