// An agent for the notes app: lists what its key may do, then works its inbox
// as a queue (AgentClient.work), acknowledging each event once handled. Run with the key in SVC_KEY:
//   SVC_KEY=svc_live_… npm run agent            (loops until Ctrl-C)
//   SVC_KEY=svc_live_… npm run agent -- --once  (handles everything waiting, then exits)
// APP_URL (http://127.0.0.1:8000) and CLOUD_URL (http://127.0.0.1:8787) say where the app and the cloud are.
import { AgentClient } from "../core/agent/mod.ts";
import { isSvcError } from "../core/errors/mod.ts";

const key = Deno.env.get("SVC_KEY");
if (!key) {
  console.error("Set SVC_KEY to an agent key (svc_live_…)");
  Deno.exit(2);
}
const agent = new AgentClient({
  key,
  appUrl: Deno.env.get("APP_URL") ?? "http://127.0.0.1:8000",
  cloudUrl: Deno.env.get("CLOUD_URL") ?? "http://127.0.0.1:8787",
});

const allowed = await agent.intents().then(
  (intents) => intents.filter((i) => i.allowed).map((i) => i.name),
  (error) => {
    if (!isSvcError(error)) throw error;
    console.error(`agent: ${error.code}: ${error.message}`); // UNREACHABLE when the app is not running
    Deno.exit(1);
  },
);
console.log(`agent: this key may run ${allowed.join(", ") || "nothing"}`);

const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());
const once = Deno.args.includes("--once");
// The inbox as a queue: each event is leased to this worker for 30 s (extended while its handler runs), up to 4
// handled at once; a handler that throws has its event handed out again after a delay, one that returns
// acknowledges it. Run several of these agents with the same key: no event goes to two of them at once.
const { acknowledged, released } = await agent.work({
  leaseSeconds: 30,
  concurrency: 4,
  signal: stop.signal,
  wait: once ? 0 : 20,
  untilEmpty: once,
  handler: async (item) => {
    console.log(
      `agent: event #${item.inboxId} ${item.type} ${JSON.stringify(item.payload)} (delivery ${item.deliveries})`,
    );
    if (item.type === "note.created" && allowed.includes("notes.list")) {
      const { notes } = await agent.run<{ notes: unknown[] }>("notes.list", { limit: 100 });
      console.log(`agent: the user now has ${notes.length} note(s)`);
    }
  },
});
console.log(`agent: handled and acknowledged ${acknowledged} event(s), ${released} to retry`);
