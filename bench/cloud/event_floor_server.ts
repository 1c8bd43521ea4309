// The floors of a single event over HTTP (bench/cloud/event_floors.ts): the Deno adapter's native server reading the
// event's JSON body and answering 202 with its JSON answer (`http`); the same answered after the event-loop turn's
// I/O, as a group commit answers, without storing anything (`defer`); the same plus the event stored by a minimal
// group commit straight on the `libsql` binding, one prepared INSERT per event between `BEGIN IMMEDIATE` and `COMMIT`
// once a turn, SQLite's own WAL checkpoints (`raw`); and the same plus the event stored through the cloud's storage
// (`store`: the insert in the group commit, as `POST /v1/events` stores it). No auth, no validation, no metrics: the
// cloud's own route is what it costs on top.
//   deno run -A bench/cloud/event_floor_server.ts <http|defer|raw|store> <file: url> <projectId>
import { serve } from "../../adapters/deno.ts";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";
import Database from "libsql";

const [mode, db, projectId] = Deno.args;
const headers = { "content-type": "application/json" };
const utf8 = new TextDecoder("utf-8", { fatal: true });
const answer = (r: { eventId: string; inboxId: number; duplicate: boolean }) =>
  new Response(JSON.stringify({ ok: true, ...r }), { status: r.duplicate ? 200 : 202, headers });
type Event = { eventId: string; type: string; agentId: string; payload: Record<string, unknown> };
let handler: (req: Request) => Promise<Response>;
let ms = 0;
let at = "";
const stamp = () => {
  const now = Date.now();
  if (now !== ms) at = new Date(ms = now).toISOString();
  return at;
};
if (mode === "http") {
  let n = 0;
  handler = async (req) => {
    const e = JSON.parse(utf8.decode(await req.arrayBuffer()));
    return answer({ eventId: e.eventId, inboxId: ++n, duplicate: false });
  };
} else if (mode === "defer" || mode === "raw") {
  // A group of the turn's events, written (or not) once its I/O is done, each caller answered after.
  const insert = (() => {
    if (mode === "defer") return null;
    const sqlite = new Database(db.slice("file:".length), { timeout: 5000 });
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
    const statement = sqlite.prepare(
      `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, event_id) WHERE replay_of IS NULL DO NOTHING`,
    );
    return { sqlite, statement };
  })();
  let n = 0;
  let group: { e: Event; at: string; done: (inboxId: number) => void }[] = [];
  const write = () => {
    const taken = group;
    group = [];
    if (insert === null) {
      for (const g of taken) g.done(++n);
      return;
    }
    insert.sqlite.exec("BEGIN IMMEDIATE");
    const ids = taken.map(({ e, at }) =>
      Number(
        insert.statement.run([projectId, e.eventId, e.type, e.agentId, JSON.stringify(e.payload), at]).lastInsertRowid,
      )
    );
    insert.sqlite.exec("COMMIT");
    taken.forEach((g, i) => g.done(ids[i]));
  };
  handler = async (req) => {
    const e: Event = JSON.parse(utf8.decode(await req.arrayBuffer()));
    const inboxId = await new Promise<number>((done) => {
      if (group.push({ e, at: stamp(), done }) === 1) setImmediate(write);
    });
    return answer({ eventId: e.eventId, inboxId, duplicate: false });
  };
} else {
  const storage = await openCloudStorage(db);
  handler = async (req) => {
    const e = JSON.parse(utf8.decode(await req.arrayBuffer()));
    const [{ eventId, inboxId, duplicate }] = await storage.inbox.appendEvents(projectId, [e], stamp());
    return answer({ eventId, inboxId, duplicate });
  };
}
const server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${server.port}`);
