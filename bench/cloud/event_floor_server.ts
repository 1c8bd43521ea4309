// The floors of a single event over HTTP (bench/cloud/event_floors.ts): the Deno adapter's native server reading the
// event's JSON body and answering 202 with its JSON answer (`http`), and the same plus the event stored through the
// cloud's storage (`store`: the insert in the group commit, as `POST /v1/events` stores it). No auth, no validation,
// no metrics: the cloud's own route is what it costs on top.
//   deno run -A bench/cloud/event_floor_server.ts <http|store> <file: url> <projectId>
import { serve } from "../../adapters/deno.ts";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";

const [mode, db, projectId] = Deno.args;
const headers = { "content-type": "application/json" };
const utf8 = new TextDecoder("utf-8", { fatal: true });
const answer = (r: { eventId: string; inboxId: number; duplicate: boolean }) =>
  new Response(JSON.stringify({ ok: true, ...r }), { status: r.duplicate ? 200 : 202, headers });
let handler: (req: Request) => Promise<Response>;
if (mode === "http") {
  let n = 0;
  handler = async (req) => {
    const e = JSON.parse(utf8.decode(await req.arrayBuffer()));
    return answer({ eventId: e.eventId, inboxId: ++n, duplicate: false });
  };
} else {
  const storage = await openCloudStorage(db);
  let ms = 0;
  let at = "";
  handler = async (req) => {
    const e = JSON.parse(utf8.decode(await req.arrayBuffer()));
    const now = Date.now();
    if (now !== ms) at = new Date(ms = now).toISOString();
    const [{ eventId, inboxId, duplicate }] = await storage.inbox.appendEvents(projectId, [e], at);
    return answer({ eventId, inboxId, duplicate });
  };
}
const server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
console.log(`listening on http://127.0.0.1:${server.port}`);
