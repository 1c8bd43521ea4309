// The example app: a small notes app that gives agents scoped access through
// /svc, by pasted key or by OAuth (MCP clients). Its sign-in is a demo: the
// `session` cookie names the user, and /login sets it for any name. Do not ship that.
import { z } from "zod";
import { html } from "hono/html";
import { createClient } from "@libsql/client";
import {
  createSvc,
  defineIntent,
  type IntentRegistry,
  isOAuthReturnUrl,
  type LocalSvcConfig,
  type Svc,
  type SvcCloudConfig,
  SvcError,
  withSvc,
} from "../mod.ts";

const note = z.object({ id: z.string(), title: z.string(), body: z.string(), createdAt: z.string() });

/** The scopes the notes app supports, with what each allows (the OAuth consent page shows it). */
export const NOTES_SCOPE_DESCRIPTIONS: Record<string, string> = {
  "notes:read": "Read your notes",
  "notes:write": "Create notes in your name",
  "notes:delete": "Delete your notes",
};

/** The scopes the notes app supports. */
export const NOTES_SCOPES: string[] = Object.keys(NOTES_SCOPE_DESCRIPTIONS);

/** The demo sign-in: `Cookie: session=<user>`. */
export function demoUser(req: Request): string | null {
  const match = /(?:^|;\s*)session=([A-Za-z0-9_-]{1,64})/.exec(req.headers.get("cookie") ?? "");
  return match ? match[1] : null;
}

/**
 * The demo sign-in page, `oauth.signInUrl`: GET shows a form asking for a name, POST sets `session` and goes back to
 * `return_to` when it is the app's own authorization URL (`isOAuthReturnUrl`), else to `/`: never elsewhere, or the
 * page would be an open redirect.
 */
async function demoSignIn(req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (req.method === "GET") {
    const returnTo = url.searchParams.get("return_to") ?? "/";
    const page = html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>Sign in to Notes</title>
        </head>
        <body>
          <main>
            <h1>Sign in to Notes</h1>
            <p>Demo sign-in: any name signs you in as that user.</p>
            <form method="post" action="/login"><input type="hidden" name="return_to" value="${returnTo}">
      <label for="user">Name</label> <input id="user" name="user" value="alice" pattern="[A-Za-z0-9_-]{1,64}" required>
      <button type="submit">Sign in</button></form>
          </main>
        </body>
      </html>
    `;
    return new Response(String(await page), {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
      },
    });
  }
  if (req.method !== "POST") {
    return new Response("Method not allowed\n", { status: 405, headers: { allow: "GET, POST" } });
  }
  const form = await req.formData().catch(() => null);
  const user = String(form?.get("user") ?? "");
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(user)) {
    return new Response("Name: 1 to 64 letters, digits, - or _\n", { status: 400 });
  }
  const returnTo = String(form?.get("return_to") ?? "/");
  return new Response(null, {
    status: 303,
    headers: {
      location: isOAuthReturnUrl(returnTo, url.origin) ? returnTo : "/",
      "set-cookie": `session=${user}; Path=/; HttpOnly; SameSite=Lax`,
    },
  });
}

/** A key as `GET /svc/keys` lists it, and a run as `GET /svc/activity` lists it: what the home page shows. */
type ListedKey = { id: string; name: string; scopes: string[]; revokedAt: string | null };
type Run = { at: string; keyId: string; intent: string; via: string; outcome: string; code?: string; client?: string };

/**
 * The signed-in user's page: their agent keys, and under them what their agents did (`GET /svc/activity`, newest
 * first), both read through the app's own `/svc` routes with the user's session.
 */
async function homePage(svc: Svc, req: Request, user: string): Promise<Response> {
  const asUser = (path: string) =>
    svc.handle(new Request(new URL(path, req.url), { headers: { cookie: req.headers.get("cookie") ?? "" } }));
  const { keys } = await (await asUser("/svc/keys")).json() as { keys: ListedKey[] };
  const { activity } = await (await asUser("/svc/activity?limit=20")).json() as { activity: Run[] };
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const page = html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Notes</title>
      </head>
      <body>
        <main>
          <h1>Notes</h1>
          <p>Notes app. Signed in as ${user}.</p>
          <h2>Your agent keys</h2>
          ${keys.length === 0
            ? html`<p>No keys yet.</p>`
            : html`<ul>${
              keys.map((k) =>
                html`<li>${k.name} (${k.scopes.join(", ") || "no scopes"})${k.revokedAt ? " — revoked" : ""}</li>`
              )
            }</ul>`}
          <h2>What your agents did</h2>
          ${activity.length === 0
            ? html`<p>Nothing yet.</p>`
            : html`<ol id="activity">${
              activity.map((r) =>
                html`<li><time datetime="${r.at}">${r.at}</time> ${names.get(r.keyId) ?? r.keyId}${
                  r.client ? ` (${r.client})` : ""
                }: ${r.intent} over ${r.via}: <strong>${r.outcome}</strong>${r.code ? ` ${r.code}` : ""}</li>`
              )
            }</ol>`}
        </main>
      </body>
    </html>
  `;
  return new Response(String(await page), {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    },
  });
}

/** What the notes app runs on: its libSQL database, and the cloud for hybrid mode. */
export interface NotesAppOptions {
  /** The app's database (its notes and its agent keys). */
  db: string;
  /** When given, the app runs in hybrid mode against this cloud and emits `note.created` events. */
  cloud?: SvcCloudConfig;
  /** More intents beside the notes ones (the MCP conformance test adds the two tools its suite calls by name). */
  moreIntents?: Extract<IntentRegistry, readonly unknown[]>;
}

/** Builds the notes app. */
export async function createNotesApp(
  options: NotesAppOptions,
): Promise<{ fetch: (req: Request) => Promise<Response>; svc: Svc; close: () => Promise<void> }> {
  const db = createClient({ url: options.db });
  await db.execute(`CREATE TABLE IF NOT EXISTS notes (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)`);

  async function createNote(user: string, title: string, body: string) {
    const row = { id: crypto.randomUUID(), title, body, createdAt: new Date().toISOString() };
    await db.execute({
      sql: "INSERT INTO notes (id, owner, title, body, created_at) VALUES (?, ?, ?, ?, ?)",
      args: [row.id, user, title, body, row.createdAt],
    });
    return row;
  }

  const settings: LocalSvcConfig = {
    userResolver: demoUser,
    scopes: NOTES_SCOPE_DESCRIPTIONS,
    storage: db,
    validateResults: true,
    // MCP clients connect with the URL alone: the app is their OAuth server, and a signed-out user signs in here.
    oauth: { signInUrl: "/login" },
    intents: [
      defineIntent({
        name: "notes.create",
        title: "Create a note",
        requiredScopes: ["notes:write"],
        input: z.object({ title: z.string().min(1).max(200), body: z.string().max(10_000).default("") }),
        output: note,
        handler: ({ title, body }, user) => createNote(user, title, body),
      }),
      defineIntent({
        name: "notes.list",
        title: "List my notes",
        requiredScopes: ["notes:read"],
        input: z.object({ limit: z.number().int().min(1).max(100).default(20) }),
        output: z.object({ notes: z.array(note) }),
        async handler({ limit }, user) {
          const rs = await db.execute({
            sql: "SELECT id, title, body, created_at FROM notes WHERE owner = ? ORDER BY created_at DESC LIMIT ?",
            args: [user, limit],
          });
          return {
            notes: rs.rows.map((r) => ({
              id: String(r.id),
              title: String(r.title),
              body: String(r.body),
              createdAt: String(r.created_at),
            })),
          };
        },
      }),
      defineIntent({
        name: "notes.delete",
        title: "Delete a note",
        requiredScopes: ["notes:delete"],
        input: z.object({ id: z.uuid() }),
        output: z.object({ deleted: z.literal(true) }),
        async handler({ id }, user) {
          const rs = await db.execute({ sql: "DELETE FROM notes WHERE id = ? AND owner = ?", args: [id, user] });
          if (rs.rowsAffected === 0) throw new SvcError("NOT_FOUND", "No such note");
          return { deleted: true as const };
        },
      }),
      defineIntent({
        name: "notes.delete_all",
        title: "Delete all my notes",
        requiredScopes: ["notes:write"],
        input: z.object({ confirm: z.literal(true) }),
        output: z.object({ deleted: z.number().int() }),
        // Nothing is deleted until the user approves, on the page at the answer's decideUrl (or their own app's).
        approval: "always",
        approvalTtlMinutes: 60,
        async handler(_payload, user) {
          const rs = await db.execute({ sql: "DELETE FROM notes WHERE owner = ?", args: [user] });
          return { deleted: rs.rowsAffected };
        },
      }),
      ...(options.moreIntents ?? []),
    ],
  };
  // Hybrid mode with a cloud: keys stay in `db`, mirrored to the cloud; `emit` reaches agents' inboxes.
  const svc = createSvc(options.cloud ? { ...settings, mode: "hybrid", cloud: options.cloud } : settings);
  await svc.ready;

  const fetch = withSvc(svc, async (req) => {
    const { pathname } = new URL(req.url);
    if (pathname === "/notes" && req.method === "POST") {
      // The app's own UI route: a signed-in user writes a note, and the app tells the user's agent.
      const user = demoUser(req);
      if (!user) return new Response("Sign in first\n", { status: 401 });
      const { title } = z.object({ title: z.string().min(1).max(200) }).parse(await req.json());
      const note = await createNote(user, title, "");
      const event = options.cloud
        ? await svc.emit({ type: "note.created", agentId: user, payload: { noteId: note.id, title }, eventId: note.id })
        : null;
      return Response.json({ note, event }, { status: 201 });
    }
    if (pathname === "/login") return await demoSignIn(req);
    if (pathname === "/") {
      const user = demoUser(req);
      if (!user) return new Response("Notes app. Signed out (demo: send Cookie: session=alice).\n");
      return await homePage(svc, req, user);
    }
    return new Response("Not found\n", { status: 404 });
  });
  return {
    fetch: async (req) => await fetch(req),
    svc,
    async close() {
      await svc.close();
      db.close();
    },
  };
}
