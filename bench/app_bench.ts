// App side, the user's path: POST /svc/agent/run through the project's adapter on one runtime against that
// runtime's own bare server (the floor) and the careful Hono peer (served the runtime's usual way, valid keys
// cached 5 s: bench/peers/hono_peer.ts), plus the refused paths (401, 403), MCP tools/call
// and the run at many keys. Every variant
// runs in its own server process; rounds alternate the variants and the best
// round of each counts, since noise from other processes only ever slows a run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCP_CALL_BODY, RUN_BODY } from "./app/notes_app.ts";
import { ratio, type Result } from "./result.ts";
import { type Runtime, runtimeCommand, type ServerProcess, startServer } from "./server_process.ts";
import { runWrk, type WrkResult } from "./wrk.ts";
import { keysDatabase } from "./app/seed_keys.ts";

/** How long and how often each variant is loaded. */
export interface LoadPlan {
  /** Seconds of warm-up per server. */
  warmSeconds: number;
  /** Seconds per measured run. */
  seconds: number;
  /** Rounds over all variants. */
  rounds: number;
  /** Keys in the database of the "many keys" variant (0: not measured). */
  manyKeys: number;
}

interface Keys {
  full: string;
  readOnly: string;
  unknown: string;
}

type Variant = "bare" | "hono" | "run" | "quiet" | "401" | "403" | "mcp" | "few" | "many" | "direct";

/**
 * Measures the app side on one runtime.
 *
 * @param runtime The runtime of the servers.
 * @param plan Durations.
 * @returns The results.
 */
export async function appBench(runtime: Runtime, plan: LoadPlan): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-app-"));
  const db = `file:${join(dir, "keys.db")}`;
  const servers: ServerProcess[] = [];
  try {
    const setup = (url: string, file: string): Keys => {
      execFileSync(runtimeCommand("node", "bench/app/setup_keys.ts")[0], ["bench/app/setup_keys.ts", url, file]);
      return JSON.parse(readFileSync(file, "utf8"));
    };
    const keys = setup(db, join(dir, "keys.json"));
    const start = (mode: string, url = db) =>
      startServer(runtimeCommand(runtime, "bench/app/app_server.ts").concat(mode, url));
    const [bare, svc, hono] = [await start("bare"), await start("svc"), await start("hono")];
    const quiet = await start("svc-quiet");
    servers.push(bare, svc, hono, quiet);
    const targets = {
      bare: { server: bare, key: keys.full },
      run: { server: svc, key: keys.full },
      quiet: { server: quiet, key: keys.full },
      hono: { server: hono, key: keys.full },
      "401": { server: svc, key: keys.unknown },
      "403": { server: svc, key: keys.readOnly },
      mcp: { server: svc, key: keys.full },
    } as Record<Variant, { server: ServerProcess; key: string }>;
    if (runtime === "deno") {
      // The same app on Deno.serve directly, without the adapter: the floor of the adapter's native server.
      const direct = await start("svc-direct");
      servers.push(direct);
      targets.direct = { server: direct, key: keys.full };
    }
    if (plan.manyKeys > 0) {
      // The many-keys run is compared with a server of its own at 2 keys, started and loaded the same way (keys
      // minted before it starts, runs only), not with the `run` server: a second 2-key server in the many-keys
      // slot read 0.76-0.83 of the `run` server (bench/README.md), so that ratio measured two processes, not keys.
      const few = `file:${join(dir, "few.db")}`;
      const many = await keysDatabase(plan.manyKeys);
      const [fewKey, manyKey] = [setup(few, join(dir, "few.json")).full, setup(many, join(dir, "many.json")).full];
      const [fewServer, manyServer] = [await start("svc", few), await start("svc", many)];
      servers.push(fewServer, manyServer);
      targets.few = { server: fewServer, key: fewKey };
      targets.many = { server: manyServer, key: manyKey };
    }
    // Each ratio's two sides are loaded one after the other (bare then run, few then many), so that a burst of
    // load from other processes is more likely to fall on both than on one.
    const variants: Variant[] = [
      "bare",
      "run",
      "quiet",
      ...(runtime === "deno" ? ["direct" as const] : []),
      ...(plan.manyKeys > 0 ? ["few" as const, "many" as const] : []),
      "hono",
      "401",
      "403",
      "mcp",
    ];
    const load = (variant: Variant, seconds: number) => {
      const { server, key } = targets[variant];
      const mcp = variant === "mcp";
      return runWrk(`${server.url}${mcp ? "/svc/mcp" : "/svc/agent/run"}`, {
        script: "post.lua",
        env: {
          BODY: mcp ? MCP_CALL_BODY : RUN_BODY,
          AUTH: `Bearer ${key}`,
          ACCEPT: mcp ? "application/json, text/event-stream" : "",
        },
        seconds,
      });
    };
    for (const variant of variants.filter((v) => v !== "401" && v !== "403")) await load(variant, plan.warmSeconds);
    const best = new Map<Variant, WrkResult>();
    const cpu = new Map<Variant, number>(); // server CPU (user + system) µs a request, in the best round
    for (let round = 0; round < plan.rounds; round++) {
      for (const variant of variants) {
        const cpuBefore = targets[variant].server.cpuSeconds();
        const result = await load(variant, plan.seconds);
        const cpuUs = (targets[variant].server.cpuSeconds() - cpuBefore) * 1e6 / (result.rps * plan.seconds);
        const expectedFailures = variant === "401" || variant === "403";
        if (!expectedFailures && result.non2xx > 0) throw new Error(`${runtime} ${variant}: ${result.non2xx} non-2xx`);
        if (expectedFailures && result.non2xx === 0) throw new Error(`${runtime} ${variant}: no refusals`);
        const previous = best.get(variant);
        if (previous === undefined || result.rps > previous.rps) best.set(variant, result);
        if (previous === undefined || result.rps > previous.rps) cpu.set(variant, cpuUs);
      }
    }
    const get = (v: Variant) => best.get(v)!;
    const us = (v: Variant) => Math.round(cpu.get(v) ?? 0);
    const row = (scenario: string, v: Variant, base: Variant, baselineIs: string, goal: number): Result => {
      const r = ratio(get(v).rps, get(base).rps);
      return {
        scenario,
        runtime,
        value: Math.round(get(v).rps),
        unit: "req/s",
        baseline: Math.round(get(base).rps),
        ratio: r,
        target: `≥ ${goal.toFixed(2)}×`,
        met: r >= goal,
        p50Ms: get(v).p50,
        p99Ms: get(v).p99,
        baselineIs: `${baselineIs} (p50 ${get(base).p50.toFixed(2)} ms, p99 ${
          get(base).p99.toFixed(2)
        } ms; server CPU ${us(v)} against ${us(base)} µs a request)`,
      };
    };
    const bareIs = { deno: "Deno.serve", bun: "Bun.serve", node: "node:http" }[runtime];
    const peerIs = { deno: "Deno.serve", bun: "Bun.serve", node: "@hono/node-server" }[runtime];
    const rows = [
      row(
        "agent run (adapter) vs bare runtime",
        "run",
        "bare",
        `${bareIs}, same JSON, no adapter`,
        runtime === "deno" ? 0.5 : 0.6,
      ),
      row("agent run with activity vs without", "run", "quiet", "the same app with activity: false", 0.95),
      row(
        "agent run vs careful Hono peer",
        "run",
        "hono",
        `Hono on ${peerIs}, zod, SHA-256 bearer on @libsql/client, valid keys cached 5 s`,
        0.9,
      ),
      row("refused 403 (missing scope) vs success", "403", "run", "successful agent run", 1.0),
      row("refused 401 (unknown key) vs success", "401", "run", "successful agent run", 1.0),
      row("/svc/mcp tools/call vs agent run", "mcp", "run", "successful agent run", 0.8),
    ];
    if (runtime === "deno") {
      const direct = row(
        "agent run, Deno.serve directly (no adapter), vs bare runtime",
        "direct",
        "bare",
        "Deno.serve, same JSON",
        0.5,
      );
      rows.splice(1, 0, { ...direct, target: "(not the user's path)", met: undefined });
    }
    if (plan.manyKeys > 0) {
      const label = plan.manyKeys.toLocaleString("en-US");
      rows.push(
        row(`agent run at ${label} keys vs at 2 keys`, "many", "few", "agent run, 2 keys in the database", 0.95),
      );
    }
    return rows;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
