// Revoke → refusal: how long after `DELETE /v1/sdk/keys/:id` answers at the
// cloud a connected app refuses the key, in hybrid mode (the feed writes the
// app's key store) and cloud mode (the feed drops a cached verification; the
// cache would otherwise trust the key for a minute), and in hybrid mode for a
// revoke committed by another process on the cloud's database (the dashboard,
// another cloud node), which the feed's 500 ms re-check finds. The cloud and
// the app listen on 127.0.0.1 in this process; the app is polled every
// millisecond from before the revoke is sent. Then the edges (`revocation_edges_bench.ts`): auto-revoke
// under a burst of forbidden calls (→ 401, → `auto` in the feed), and a rotated sdkSecret → 503
// CLOUD_CREDENTIALS_REFUSED, each at a hybrid and a cloud-mode app.
// Run alone: `node bench/revocation_bench.ts [--samples=N]`, or within `npm run bench`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createClient } from "@libsql/client";
import { createCloud } from "../cloud/create_cloud.ts";
import { createProject } from "../cloud/projects/projects.ts";
import { openCloudStorage } from "../cloud/open_cloud_storage.ts";
import { createSvc, type Svc, withSvc } from "../mod.ts";
import { serve } from "../adapters/node.ts";
import type { Result } from "./result.ts";
import { revocationEdgesBench } from "./revocation_edges_bench.ts";

const TARGET = "p99 < 1,000 ms";

/**
 * Measures revoke → refusal in hybrid and cloud mode.
 *
 * @param options How many revokes per mode.
 * @returns One row per mode.
 */
export async function revocationBench(options: { samples: number }): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-revocation-"));
  const cloudDb = `file:${join(dir, "cloud.db")}`;
  const client = createClient({ url: cloudDb });
  const { project, sdkSecret } = await createProject(await openCloudStorage(client), "bench");
  client.close();
  const cloud = createCloud({ db: cloudDb, logger: () => {} });
  await cloud.ready;
  const cloudServer = await serve(cloud.handle, { port: 0, hostname: "127.0.0.1" });
  const elsewhere = await openCloudStorage(cloudDb);
  const revokeOverHttp = async (id: string) => {
    const res = await fetch(`${cloudServer.url}/v1/sdk/keys/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${sdkSecret}`, "x-svc-project": project.id },
    });
    await res.body?.cancel();
  };
  const revokeElsewhere = async (id: string) => {
    await elsewhere.keys.revokeKey(project.id, id, new Date().toISOString(), "dashboard");
  };
  const variants = [
    { mode: "hybrid" as const, revoke: revokeOverHttp, by: "DELETE /v1/sdk/keys/:id" },
    { mode: "cloud" as const, revoke: revokeOverHttp, by: "DELETE /v1/sdk/keys/:id" },
    { mode: "hybrid" as const, revoke: revokeElsewhere, by: "another process on the cloud's database" },
  ];
  const results: Result[] = [];
  try {
    for (const { mode, revoke, by } of variants) {
      const svc = createSvc({
        mode,
        userResolver: (req) => req.headers.get("x-user"),
        scopes: ["read"],
        storage: `file:${join(dir, `${mode}-${results.length}.db`)}`,
        logger: () => {},
        cloud: {
          endpoint: cloudServer.url,
          projectId: project.id,
          sdkSecret,
          keyCacheTtlMs: 60_000,
          retryMinMs: 20,
          retryMaxMs: 200,
        },
        intents: [{ name: "ping", title: "Ping", requiredScopes: ["read"], handler: () => ({ ok: true }) }],
      });
      const app = await serve(withSvc(svc), { port: 0, hostname: "127.0.0.1" });
      try {
        const delays = await measure(svc, app.url, revoke, options.samples);
        delays.sort((a, b) => a - b);
        const p50 = percentile(delays, 0.5);
        const p99 = percentile(delays, 0.99);
        results.push({
          scenario: `revoke (${by}) → refused at a ${mode} app`,
          runtime: runtimeName(),
          value: p99,
          unit: "ms p99",
          baseline: null,
          ratio: null,
          target: TARGET,
          met: p99 < 1000,
          p50Ms: p50,
          p99Ms: p99,
          baselineIs: `${delays.length} revokes`,
        });
      } finally {
        await app.close();
        await svc.close();
      }
    }
  } finally {
    await elsewhere.close();
    await cloudServer.close();
    await cloud.close();
    rmSync(dir, { recursive: true, force: true });
  }
  // Auto-revoke under a burst and rotation → refused: a few runs each (a burst takes seconds).
  results.push(...await revocationEdgesBench({ runs: Math.max(3, Math.min(10, Math.round(options.samples / 10))) }));
  return results;
}

/** Revoke → refusal at `appUrl`, `samples` times: the app's key minted, then revoked by `revoke`, the ms until 401. */
export async function measure(
  svc: Svc,
  appUrl: string,
  revoke: (keyId: string) => Promise<void>,
  samples: number,
): Promise<number[]> {
  const delays: number[] = [];
  for (let i = 0; i < samples; i++) {
    const minted = await (await fetch(`${appUrl}/svc/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user": `u${i}` },
      body: JSON.stringify({ name: "bench", scopes: ["read"] }),
    })).json();
    await svc.sync();
    if (await runStatus(appUrl, minted.key) !== 200) throw new Error("the fresh key was refused");
    while (!(await svc.health()).revocationFeed?.connected) await new Promise((r) => setTimeout(r, 5));
    const start = performance.now();
    await revoke(minted.id);
    while (await runStatus(appUrl, minted.key) !== 401) {
      if (performance.now() - start > 30_000) throw new Error("never refused");
      await new Promise((r) => setTimeout(r, 1));
    }
    delays.push(Math.round((performance.now() - start) * 100) / 100);
  }
  return delays;
}

async function runStatus(appUrl: string, key: string): Promise<number> {
  const res = await fetch(`${appUrl}/svc/agent/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ intent: "ping" }),
  });
  await res.body?.cancel();
  return res.status;
}

/** The `p` quantile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function runtimeName(): string {
  return "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
}

if (import.meta.main) {
  const samples = Number(process.argv.find((a) => a.startsWith("--samples="))?.slice(10) ?? 100);
  const rows = await revocationBench({ samples });
  console.log(JSON.stringify(rows, null, 2));
}
