// The edges of revocation, rows of `revocation_bench.ts`:
// - auto-revoke under a burst: the project's policy (threshold 3 within 10 minutes, FORBIDDEN_SCOPE), an agent
//   calling a forbidden intent at a cloud-mode app 20 times a second; the time from the 3rd refusal (403) to the
//   first refused call (401). Each run gives up after BURST_LIMIT_MS (recorded as that bound, target missed).
// - rotation: the sdkSecret rotated by another process on the cloud's database (as `project rotate-secret` does);
//   the time until the old secret's feed poll is answered 401. (The app side's `503 CLOUD_CREDENTIALS_REFUSED` is
//   measured once that branch is merged; this row is the cloud's half of it.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCloud } from "../cloud/create_cloud.ts";
import { createProject, rotateSdkSecret } from "../cloud/projects/projects.ts";
import { openCloudStorage } from "../cloud/open_cloud_storage.ts";
import { createSvc, withSvc } from "../mod.ts";
import { serve } from "../adapters/node.ts";
import type { Result } from "./result.ts";

/** How long one burst may run before the run counts as missed. */
const BURST_LIMIT_MS = 15_000;
/** 20 forbidden calls a second. */
const CALL_EVERY_MS = 50;

/**
 * Measures auto-revoke under a burst and rotation → the old secret refused.
 *
 * @param options How many runs of each.
 * @returns Two rows.
 */
export async function revocationEdgesBench(options: { runs: number }): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-edges-"));
  const cloudDb = `file:${join(dir, "cloud.db")}`;
  const cloud = createCloud({ db: cloudDb, logger: () => {} });
  await cloud.ready;
  const cloudServer = await serve(cloud.handle, { port: 0, hostname: "127.0.0.1" });
  const elsewhere = await openCloudStorage(cloudDb);
  try {
    const bursts: number[] = [];
    for (let run = 0; run < options.runs; run++) bursts.push(await autoRevokeRun(cloudServer.url, elsewhere, run));
    const rotations: number[] = [];
    for (let run = 0; run < options.runs; run++) rotations.push(await rotationRun(cloudServer.url, elsewhere));
    return [
      row("auto-revoke (policy 3 within 10 min) under 20 forbidden calls/s → refused at a cloud-mode app", bursts),
      row("sdkSecret rotated by another process → the old secret's feed poll answered 401", rotations),
    ];
  } finally {
    await elsewhere.close();
    await cloudServer.close();
    await cloud.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Storage = Awaited<ReturnType<typeof openCloudStorage>>;

async function autoRevokeRun(cloudUrl: string, storage: Storage, run: number): Promise<number> {
  const { project, sdkSecret } = await createProject(storage, `burst ${run}`);
  const sdk = { authorization: `Bearer ${sdkSecret}`, "x-svc-project": project.id, "content-type": "application/json" };
  const policy = await fetch(`${cloudUrl}/v1/sdk/policy`, {
    method: "PUT",
    headers: sdk,
    body: JSON.stringify({ autoRevoke: { threshold: 3, windowMinutes: 10, kinds: ["FORBIDDEN_SCOPE"] } }),
  });
  if (policy.status !== 200) throw new Error(`policy: ${policy.status}`);
  const svc = createSvc({
    mode: "cloud",
    userResolver: (req) => req.headers.get("x-user"),
    scopes: ["read", "write"],
    logger: () => {},
    cloud: { endpoint: cloudUrl, projectId: project.id, sdkSecret, retryMinMs: 20, retryMaxMs: 200 },
    intents: [
      { name: "ping", title: "Ping", requiredScopes: ["read"], handler: () => ({ ok: true }) },
      { name: "wipe", title: "Wipe", requiredScopes: ["write"], handler: () => ({ ok: true }) },
    ],
  });
  const app = await serve(withSvc(svc), { port: 0, hostname: "127.0.0.1" });
  try {
    const minted = await (await fetch(`${app.url}/svc/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user": `burst${run}` },
      body: JSON.stringify({ name: "bench", scopes: ["read"] }),
    })).json();
    let refusals = 0;
    let third = 0;
    const start = performance.now();
    while (performance.now() - start < BURST_LIMIT_MS) {
      const status = await runStatus(app.url, minted.key, "wipe");
      if (status === 401) return Math.round((performance.now() - third) * 100) / 100;
      if (status === 403 && ++refusals === 3) third = performance.now();
      await new Promise((resolve) => setTimeout(resolve, CALL_EVERY_MS));
    }
    return BURST_LIMIT_MS;
  } finally {
    await app.close();
    await svc.close();
  }
}

async function rotationRun(cloudUrl: string, storage: Storage): Promise<number> {
  const { project, sdkSecret } = await createProject(storage, "rotation");
  const poll = async () => {
    const res = await fetch(`${cloudUrl}/v1/sdk/keys/revocations?after=0`, {
      headers: { authorization: `Bearer ${sdkSecret}`, "x-svc-project": project.id },
    });
    await res.body?.cancel();
    return res.status;
  };
  if (await poll() !== 200) throw new Error("the fresh secret was refused");
  const start = performance.now();
  await rotateSdkSecret(storage, project.id);
  while (await poll() !== 401) {
    if (performance.now() - start > BURST_LIMIT_MS) return BURST_LIMIT_MS;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return Math.round((performance.now() - start) * 100) / 100;
}

async function runStatus(appUrl: string, key: string, intent: string): Promise<number> {
  const res = await fetch(`${appUrl}/svc/agent/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ intent }),
  });
  await res.body?.cancel();
  return res.status;
}

function row(scenario: string, delays: number[]): Result {
  const sorted = [...delays].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  const p99 = at(0.99);
  return {
    scenario,
    runtime: "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node",
    value: p99,
    unit: "ms p99",
    baseline: null,
    ratio: null,
    target: "p99 < 1,000 ms",
    met: p99 < 1000,
    p50Ms: at(0.5),
    p99Ms: p99,
    baselineIs: `${delays.length} runs (a run that never got there counts as ${BURST_LIMIT_MS} ms)`,
  };
}
