// The example app: a small notes app that gives agents scoped access through
// /svc. Its sign-in is a demo: the `session` cookie names the user. Do not ship that.
import { z } from "zod";
import { createClient } from "@libsql/client";
import { createSvc, defineIntent, type Svc, SvcError, withSvc } from "../mod.ts";

const note = z.object({ id: z.string(), title: z.string(), body: z.string(), createdAt: z.string() });

/** The scopes the notes app supports. */
export const NOTES_SCOPES = ["notes:read", "notes:write", "notes:delete"];

/** The demo sign-in: `Cookie: session=<user>`. */
export function demoUser(req: Request): string | null {
  const match = /(?:^|;\s*)session=([A-Za-z0-9_-]{1,64})/.exec(req.headers.get("cookie") ?? "");
  return match ? match[1] : null;
}

/** Builds the notes app on one libSQL database (its notes and its agent keys). */
export async function createNotesApp(
  url: string,
): Promise<{ fetch: (req: Request) => Promise<Response>; svc: Svc; close: () => Promise<void> }> {
  const db = createClient({ url });
  await db.execute(`CREATE TABLE IF NOT EXISTS notes (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)`);

  const svc = createSvc({
    userResolver: demoUser,
    scopes: NOTES_SCOPES,
    storage: db,
    validateResults: true,
    intents: [
      defineIntent({
        name: "notes.create",
        title: "Create a note",
        requiredScopes: ["notes:write"],
        input: z.object({ title: z.string().min(1).max(200), body: z.string().max(10_000).default("") }),
        output: note,
        async handler({ title, body }, user) {
          const row = { id: crypto.randomUUID(), title, body, createdAt: new Date().toISOString() };
          await db.execute({
            sql: "INSERT INTO notes (id, owner, title, body, created_at) VALUES (?, ?, ?, ?, ?)",
            args: [row.id, user, title, body, row.createdAt],
          });
          return row;
        },
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
    ],
  });
  await svc.ready;

  const fetch = withSvc(svc, (req) => {
    const { pathname } = new URL(req.url);
    if (pathname === "/") {
      const user = demoUser(req);
      return new Response(
        `Notes app. ${user ? `Signed in as ${user}.` : "Signed out (demo: send Cookie: session=alice)."}\n`,
      );
    }
    return new Response("Not found\n", { status: 404 });
  });
  return {
    fetch: (req) => Promise.resolve(fetch(req)),
    svc,
    async close() {
      await svc.close();
      db.close();
    },
  };
}
