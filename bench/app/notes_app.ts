// The app every app-side scenario serves: one intent with a small zod payload
// and a trivial handler, the same for the toolkit and for the Hono peer.
import { z } from "zod";
import { createSvc, defineIntent, type Svc } from "../../mod.ts";

/** The scopes of the bench app. */
export const SCOPES = ["notes:read", "notes:write"] as const;

/** The payload every successful run sends. */
export const PAYLOAD = { title: "Buy milk", body: "two litres" };

/** The request body of `POST /svc/agent/run`. */
export const RUN_BODY = JSON.stringify({ intent: "notes.create", payload: PAYLOAD });

/** The request body of `POST /svc/mcp`: one `tools/call` of the same intent with the same payload. */
export const MCP_CALL_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "notes.create", arguments: PAYLOAD },
});

/** The answer every variant returns, byte for byte. */
export const RUN_ANSWER = { ok: true, intent: "notes.create", result: { id: "n_Buy milk", title: "Buy milk" } };

/** The input schema of `notes.create`. */
export const createNoteInput = z.object({ title: z.string().min(1).max(100), body: z.string().default("") });

/** The intent. */
export const createNote = defineIntent({
  name: "notes.create",
  title: "Create a note",
  requiredScopes: ["notes:write"],
  input: createNoteInput,
  handler: ({ title }) => ({ id: `n_${title}`, title }),
});

/**
 * The bench's app on a `file:` database: the note intent, and rate limits no variant spends (one key and one address,
 * 127.0.0.1, for every connection), so every request still pays for the limits' checks (the 401 one for its count per
 * address too).
 */
export function notesSvc(db: string, options: { activity?: false } = {}): Svc {
  return createSvc({
    userResolver: () => null,
    scopes: SCOPES,
    intents: [createNote],
    storage: db,
    ...options,
    rateLimit: { perKey: { limit: 1e12, windowMs: 60_000 }, refusalsPerAddress: { limit: 1e12, windowMs: 60_000 } },
  });
}
