// The cloud as `cloud/main.ts serve` builds it (Deno, a `file:` db, the project write limit off), served by
// `Deno.serve` itself instead of the adapter (adapters/deno), so that a comparison against `cloud/main.ts serve` on
// the same load gives the adapter's share of an event's server CPU. Not for production: no
// connection cap, no head or body timeouts. Used by compare_events.ts (`label=checkout:direct`).
//   deno run -A bench/cloud/direct_server.ts <file: url>
import { createCloud } from "../../cloud/create_cloud.ts";

const cloud = createCloud({ db: Deno.args[0], rateLimit: { perProject: false } });
await cloud.ready;
const server = Deno.serve({
  port: 0,
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
}, cloud.handle);
// Ends cleanly on a signal (a `--cpu-prof` profile is written at a normal exit).
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    await cloud.close();
    Deno.exit(0);
  });
}
