// The toolkit's handler without a server: `svc.handle` called in process with a `Request` (50 in flight), so
// that what a runtime's handler costs can be compared across runtimes and profiled with `--cpu-prof`:
//   <deno run -A|bun|node> bench/handler_cost.ts [variants=run,mcp,403,401,hono,quiet] [requests=20000]
// (`hono`: the careful peer's `app.fetch`, bench/peers/hono_peer.ts, on the same keys; `quiet`: the run on the same
// app with `activity: false`, so `run` - `quiet` is what recording a run costs; `mcp`: the same run as an MCP
// `tools/call` on `POST /svc/mcp`)
// Recording is counted: each round ends after the flush delay, so every record it made is written inside it.
// Prints the CPU time (user + system) per request, best of 5 rounds per variant (rounds alternate variants).
// The `Request` is built here, which a server builds natively: on Deno and Node that share is not the server's.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { withClientAddress } from "../core/http/mod.ts";
import { MCP_CALL_BODY, notesSvc, RUN_BODY } from "./app/notes_app.ts";
import { honoPeer } from "./peers/hono_peer.ts";
import { argv } from "./app/runtime_args.ts";
import { ROOT, runtimeCommand } from "./server_process.ts";

const [list = "run,403,401", count = "20000"] = argv();
const variants = list.split(",");
const requests = Number(count);
const dir = mkdtempSync(join(tmpdir(), "svc-handler-cost-"));
const db = `file:${join(dir, "keys.db")}`;
execFileSync(runtimeCommand("node", "")[0], [`${ROOT}bench/app/setup_keys.ts`, db, join(dir, "keys.json")]);
const keys = JSON.parse(readFileSync(join(dir, "keys.json"), "utf8"));
const svc = notesSvc(db);
const quiet = notesSvc(db, { activity: false });
await Promise.all([svc.ready, quiet.ready]);
const peer = honoPeer(db);
const plan: Record<string, { key: string; status: number }> = {
  run: { key: keys.full, status: 200 },
  mcp: { key: keys.full, status: 200 },
  hono: { key: keys.full, status: 200 }, // the careful peer's handler (bench/peers/hono_peer.ts), in process too
  "403": { key: keys.readOnly, status: 403 },
  "401": { key: keys.unknown, status: 401 },
  quiet: { key: keys.full, status: 200 },
};
const handlers: Record<string, (req: Request) => Response | Promise<Response>> = { hono: peer, quiet: quiet.handle };
const request = (key: string, variant: string) =>
  withClientAddress(
    variant === "mcp"
      ? new Request("http://127.0.0.1/svc/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: MCP_CALL_BODY,
      })
      : new Request("http://127.0.0.1/svc/agent/run", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: RUN_BODY,
      }),
    () => "127.0.0.1",
  );
/** Longer than the activity log's flush delay (`ACTIVITY_FLUSH_MS`, 250 ms). */
const SETTLE_MS = 300;
const best = new Map<string, number>();
try {
  for (let round = 0; round < 5; round++) {
    for (const variant of variants) {
      const { key, status } = plan[variant];
      const before = process.cpuUsage();
      for (let sent = 0; sent < requests; sent += 50) {
        const handle = handlers[variant] ?? svc.handle;
        const answers = await Promise.all(Array.from({ length: 50 }, () => handle(request(key, variant))));
        for (const answer of answers) {
          if (answer.status !== status) throw new Error(`${variant}: ${answer.status} ${await answer.text()}`);
          await answer.arrayBuffer();
        }
      }
      // The writes this round's records need end in it: the flush delay passes (idle, no CPU) before the count.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const used = process.cpuUsage(before);
      best.set(variant, Math.min(best.get(variant) ?? Infinity, (used.user + used.system) / requests));
    }
  }
} finally {
  await Promise.all([svc.close(), quiet.close()]);
  rmSync(dir, { recursive: true, force: true });
}
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(`${runtime}: ${[...best].map(([v, us]) => `${v} ${us.toFixed(1)} µs`).join(", ")} (CPU per request)`);
process.exit(0);
