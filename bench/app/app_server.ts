// One app-side server for the bench, on whichever runtime runs this file:
//   <runtime> bench/app/app_server.ts <bare|svc|svc-quiet|hono|svc-direct> <file: url>
// It listens on 127.0.0.1, a free port, and prints `listening <port>` once ready. `svc` (and `svc-quiet`, the same app with `activity: false`) is served
// through the project's adapter (`adapters/<runtime>.ts` `serve`, what the Quick start uses); `hono`, the careful
// peer, the way a Hono user serves it on that runtime (bench/peers/hono_peer.ts); `bare` is the
// runtime's own server (bench/app/bare_server.ts), the floor the adapter's path is measured against. `svc-direct`
// (Deno only) serves the same app on `Deno.serve` without the adapter's relay, to measure what the relay costs;
// `bare-relay` serves the bare handler through the adapter with `webSockets: true` (on Deno, `bare` plus the relay
// alone), `svc-relay` the app that way (on Deno, the adapter's relay instead of its native server);
// `svc-hono-node` (Node) serves it on `@hono/node-server` instead of the adapter's srvx, to measure what srvx costs.
import { serve as bunServe } from "../../adapters/bun.ts";
import { serve as denoServe } from "../../adapters/deno.ts";
import { serve as nodeServe } from "../../adapters/node.ts";
import type { FetchHandler } from "../../core/app/mod.ts";
import { serveHonoNode, serveHonoPeer } from "../peers/hono_peer.ts";
import { notesSvc, RUN_ANSWER } from "./notes_app.ts";
import process from "node:process";
import { argv } from "./runtime_args.ts";
import { bareHandler, serveBare, serveDirect } from "./bare_server.ts";

const [mode, db] = argv();
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const serve = { bun: bunServe, deno: denoServe, node: nodeServe }[runtime];

async function handlerFor(mode: string): Promise<FetchHandler> {
  if (mode === "svc" || mode === "svc-quiet") {
    // `svc-quiet`: the same app with `activity: false`, the floor of what recording costs a run.
    const svc = notesSvc(db, mode === "svc-quiet" ? { activity: false } : {});
    await svc.ready;
    return svc.handle;
  }
  throw new Error(`unknown mode ${mode}`);
}

const port = mode === "bare"
  ? await serveBare(JSON.stringify(RUN_ANSWER))
  : mode === "bare-relay"
  ? (await serve(bareHandler(JSON.stringify(RUN_ANSWER)), { port: 0, hostname: "127.0.0.1", webSockets: true })).port
  : mode === "svc-relay"
  ? (await serve(await handlerFor("svc"), { port: 0, hostname: "127.0.0.1", webSockets: true })).port
  : mode === "hono"
  ? await serveHonoPeer(db)
  : mode === "svc-direct"
  ? serveDirect(await handlerFor("svc"))
  : mode === "svc-hono-node"
  ? await serveHonoNode(await handlerFor("svc"))
  : (await serve(await handlerFor(mode), { port: 0, hostname: "127.0.0.1" })).port;
console.log(`listening ${port}`);
// Exit through the runtime (so `--cpu-prof` writes its profile) when the bench stops us.
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
