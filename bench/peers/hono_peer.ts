// The peer: what a user would write without the toolkit. Hono, zod, and a
// bearer check that looks the SHA-256 of the token up in the same libSQL table.
import { createClient } from "@libsql/client";
import { Hono } from "hono";
import { z } from "zod";

const runBody = z.object({ intent: z.string().min(1).max(200), payload: z.unknown().optional() });
const createNoteInput = z.object({ title: z.string().min(1).max(100), body: z.string().default("") });

type Env = { Variables: { key: { id: string; userId: string; scopes: string[] } } };

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The peer app's fetch handler.
 *
 * @param db The libSQL URL holding `app_keys`.
 * @returns `app.fetch`.
 */
export function honoPeer(db: string): (req: Request) => Response | Promise<Response> {
  const client = createClient({ url: db });
  const app = new Hono<Env>();

  app.use("/svc/agent/*", async (c, next) => {
    const header = c.req.header("authorization");
    if (!header?.startsWith("Bearer ")) return c.json({ error: "unauthorized" }, 401);
    const rs = await client.execute({
      sql: "SELECT id, user_id, scopes, revoked_at FROM app_keys WHERE hash = ?",
      args: [await sha256Hex(header.slice(7))],
    });
    const row = rs.rows[0];
    if (row === undefined || row.revoked_at !== null) return c.json({ error: "unauthorized" }, 401);
    c.set("key", { id: String(row.id), userId: String(row.user_id), scopes: JSON.parse(String(row.scopes)) });
    await next();
  });

  app.post("/svc/agent/run", async (c) => {
    const body = runBody.safeParse(await c.req.json().catch(() => null));
    if (!body.success) return c.json({ error: "invalid body", issues: body.error.issues }, 400);
    if (body.data.intent !== "notes.create") return c.json({ error: "unknown intent" }, 404);
    if (!c.get("key").scopes.includes("notes:write")) return c.json({ error: "forbidden" }, 403);
    const payload = createNoteInput.safeParse(body.data.payload ?? {});
    if (!payload.success) return c.json({ error: "invalid payload", issues: payload.error.issues }, 400);
    const { title } = payload.data;
    return c.json({ ok: true, intent: "notes.create", result: { id: `n_${title}`, title } });
  });

  return app.fetch;
}
