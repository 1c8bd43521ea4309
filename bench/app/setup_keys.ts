// Creates the app's key database and mints the keys the scenarios use:
//   node bench/app/setup_keys.ts <file: url> <keys file>   → writes { full, readOnly, unknown } as JSON to the
// keys file (mode 0600); the plaintext keys are never printed.
import { writeFileSync } from "node:fs";
import { createSvc } from "../../mod.ts";
import { mintSecret } from "../../core/contract/mod.ts";
import { argv } from "./runtime_args.ts";
import { createNote, SCOPES } from "./notes_app.ts";

const [db, keysFile] = argv();
if (!db || !keysFile) throw new Error("usage: setup_keys.ts <file: url> <keys file>");
const svc = createSvc({
  userResolver: (req) => req.headers.get("x-user"),
  scopes: SCOPES,
  intents: [createNote],
  storage: db,
});
await svc.ready;

async function mint(scopes: string[]): Promise<string> {
  const res = await svc.handle(
    new Request("http://bench/svc/keys", {
      method: "POST",
      headers: { "x-user": "u_bench", "content-type": "application/json" },
      body: JSON.stringify({ name: "bench", scopes }),
    }),
  );
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${await res.text()}`);
  return (await res.json()).key;
}

const keys = {
  full: await mint(["notes:read", "notes:write"]),
  readOnly: await mint(["notes:read"]),
  unknown: mintSecret("svc_live_"),
};
await svc.close();
writeFileSync(keysFile, JSON.stringify(keys), { mode: 0o600 });
