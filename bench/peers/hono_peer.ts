// The peer: what a careful engineer would write without the toolkit (issue 41). Hono served the runtime's usual way
// (`Deno.serve(app.fetch)`, `Bun.serve({ fetch })`, `@hono/node-server` on Node), a bearer check that hashes the key
// with SHA-256 and looks it up in the same libSQL `app_keys` table through `@libsql/client`, VALID keys cached for
// 5 s (an unknown or revoked key is looked up every time), a scope check, zod validation of the payload, the same
// handler and the same answer bytes.
import { createClient } from "@libsql/client";
import { serve as nodeServe } from "@hono/node-server";
import { Hono } from "hono";
import { z } from "zod";
import { withClientAddress } from "../../core/http/mod.ts";

const runBody = z.object({ intent: z.string().min(1).max(200), payload: z.unknown().optional() });
const createNoteInput = z.object({ title: z.string().min(1).max(100), body: z.string().default("") });

type Key = { id: string; userId: string; scopes: string[] };
type Env = { Variables: { key: Key } };

/** How long a valid key is served from the cache. */
const KEY_CACHE_MS = 5_000;

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
  const valid = new Map<string, { key: Key; until: number }>();
  const app = new Hono<Env>();

  const lookUp = async (hash: string): Promise<Key | undefined> => {
    const cached = valid.get(hash);
    if (cached !== undefined && cached.until > Date.now()) return cached.key;
    const rs = await client.execute({
      sql: "SELECT id, user_id, scopes, revoked_at FROM app_keys WHERE hash = ?",
      args: [hash],
    });
    const row = rs.rows[0];
    if (row === undefined || row.revoked_at !== null) {
      valid.delete(hash);
      return undefined;
    }
    const key = { id: String(row.id), userId: String(row.user_id), scopes: JSON.parse(String(row.scopes)) };
    valid.set(hash, { key, until: Date.now() + KEY_CACHE_MS });
    return key;
  };

  app.use("/svc/agent/*", async (c, next) => {
    const header = c.req.header("authorization");
    if (!header?.startsWith("Bearer ")) return c.json({ error: "unauthorized" }, 401);
    const key = await lookUp(await sha256Hex(header.slice(7)));
    if (key === undefined) return c.json({ error: "unauthorized" }, 401);
    c.set("key", key);
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

type Runtimes = {
  Deno?: {
    serve(options: { port: number; hostname: string; onListen(): void }, h: unknown): { addr: { port: number } };
  };
  Bun?: { serve(options: { port: number; hostname: string; fetch: unknown }): { port: number } };
};

/**
 * Serves the peer the runtime's usual way on 127.0.0.1, a free port: `Deno.serve(app.fetch)`,
 * `Bun.serve({ fetch: app.fetch })`, `serve({ fetch: app.fetch })` from `@hono/node-server` on Node.
 *
 * @param db The libSQL URL holding `app_keys`.
 * @returns The port.
 */
export function serveHonoPeer(db: string): Promise<number> {
  const fetch = honoPeer(db);
  const { Deno, Bun } = globalThis as Runtimes;
  if (Deno) return Promise.resolve(Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, fetch).addr.port);
  if (Bun) return Promise.resolve(Bun.serve({ port: 0, hostname: "127.0.0.1", fetch }).port);
  return new Promise((resolve) => {
    nodeServe({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
  });
}

/**
 * Serves a fetch handler on `@hono/node-server` (Node), 127.0.0.1, a free port, each request carrying its client's
 * address as through the adapters: what the peer's server costs against the toolkit's adapter (srvx) on Node.
 *
 * @param fetch The handler.
 * @returns The port.
 */
export function serveHonoNode(fetch: (req: Request) => Response | Promise<Response>): Promise<number> {
  type Env = { incoming: { socket: { remoteAddress?: string } } };
  const handler = (req: Request, env: Env) => fetch(withClientAddress(req, () => env.incoming.socket.remoteAddress));
  return new Promise((resolve) => {
    nodeServe({ fetch: handler, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
  });
}
