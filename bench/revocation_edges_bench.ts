// The edges of revocation, rows of `revocation_bench.ts` (issue 22):
// - auto-revoke under a burst: the project's policy (threshold 3 within 10 minutes), an agent calling a forbidden
//   intent at a hybrid and at a cloud-mode app 20 times a second; the time from the 3rd refusal (403) to the first
//   call refused with 401 (the app applies the policy itself), and to the cloud's feed carrying the `auto`
//   revocation. A run gives up after LIMIT_MS or MAX_CALLS calls (recorded as LIMIT_MS, target missed).
// - rotation → 503: the sdkSecret rotated by another client on the cloud's database (as `project rotate-secret` in
//   another process would be); the time until the app's `POST /svc/agent/run` answers `503
//   CLOUD_CREDENTIALS_REFUSED` (the feed's poll, held up to 3 s, is what meets the 401). Polled every 5 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCloud } from "../cloud/create_cloud.ts";
import { createProject, rotateSdkSecret } from "../cloud/projects/projects.ts";
import { openCloudStorage } from "../cloud/open_cloud_storage.ts";
import { createSvc, type Svc, withSvc } from "../mod.ts";
import { serve } from "../adapters/node.ts";
import type { Result } from "./result.ts";

/** How long one run may take before it counts as missed. */
const LIMIT_MS = 15_000;
/** 20 forbidden calls a second. */
const CALL_EVERY_MS = 50;
/** At most this many calls in one burst (15 s at 20 a second). */
const MAX_CALLS = 300;
/** How often the app is asked after a rotation. */
const POLL_EVERY_MS = 5;

type Storage = Awaited<ReturnType<typeof openCloudStorage>>;
type Mode = "hybrid" | "cloud";
type Project = { id: string; sdkSecret: string };

/**
 * Measures auto-revoke under a burst and rotation → 503, at a hybrid and a cloud-mode app.
 *
 * @param options How many runs of each.
 * @returns Six rows: per mode, burst → 401, burst → `auto` in the feed, rotation → 503.
 */
export async function revocationEdgesBench(options: { runs: number }): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-edges-"));
  const cloudDb = `file:${join(dir, "cloud.db")}`;
  const cloud = createCloud({ db: cloudDb, logger: () => {} });
  await cloud.ready;
  const cloudServer = await serve(cloud.handle, { port: 0, hostname: "127.0.0.1" });
  const elsewhere = await openCloudStorage(cloudDb);
  const results: Result[] = [];
  try {
    for (const mode of ["hybrid", "cloud"] as const) {
      const refused: number[] = [];
      const inFeed: number[] = [];
      const callsAfter: number[] = [];
      for (let run = 0; run < options.runs; run++) {
        const burst = await burstRun(cloudServer.url, elsewhere, dir, mode, run);
        refused.push(burst.refused);
        inFeed.push(burst.inFeed);
        callsAfter.push(burst.callsAfter);
      }
      const rotations: number[] = [];
      for (let run = 0; run < options.runs; run++) {
        rotations.push(await rotationRun(cloudServer.url, elsewhere, dir, mode, run));
      }
      const policy = "auto-revoke (policy 3 within 10 min) under 20 forbidden calls/s";
      results.push(
        row(`${policy}: 3rd refusal → 401 at a ${mode} app`, refused, "p99 < 1,000 ms", 1000, {
          note: `; the 401 came ${callsAfter.join("/")} call(s) after the 3rd refusal`,
        }),
        row(
          `${policy}: 3rd refusal (${mode} app) → \`auto\` revocation in the cloud's feed`,
          inFeed,
          "p99 < 1,000 ms",
          1000,
        ),
        row(
          `sdkSecret rotated by another client → 503 CLOUD_CREDENTIALS_REFUSED at a ${mode} app`,
          rotations,
          "p99 < 5,000 ms",
          5000,
        ),
      );
    }
    return results;
  } finally {
    await elsewhere.close();
    await cloudServer.close();
    await cloud.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function newProject(storage: Storage, name: string): Promise<Project> {
  const { project, sdkSecret } = await createProject(storage, name);
  return { id: project.id, sdkSecret };
}

function appFor(cloudUrl: string, dir: string, mode: Mode, name: string, project: Project, secret: () => string): Svc {
  return createSvc(
    {
      mode,
      userResolver: (req) => req.headers.get("x-user"),
      scopes: ["read", "write"],
      storage: mode === "hybrid" ? `file:${join(dir, `${name}.db`)}` : undefined,
      logger: () => {},
      cloud: {
        endpoint: cloudUrl,
        projectId: project.id,
        sdkSecret: secret,
        keyCacheTtlMs: 60_000,
        retryMinMs: 20,
        retryMaxMs: 200,
      },
      intents: [
        { name: "ping", title: "Ping", requiredScopes: ["read"], handler: () => ({ ok: true }) },
        { name: "wipe", title: "Wipe", requiredScopes: ["write"], handler: () => ({ ok: true }) },
      ],
    } as Parameters<typeof createSvc>[0],
  );
}

/** Waits (bounded) until `check` answers true; throws past LIMIT_MS. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > LIMIT_MS) throw new Error(`bench: ${what} not reached in ${LIMIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
}

async function mint(appUrl: string, user: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${appUrl}/svc/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user": user },
    body: JSON.stringify({ name: "bench", scopes: ["read"] }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`mint: ${res.status}`);
  return await res.json();
}

async function burstRun(
  cloudUrl: string,
  storage: Storage,
  dir: string,
  mode: Mode,
  run: number,
): Promise<{ refused: number; inFeed: number; callsAfter: number }> {
  const project = await newProject(storage, `burst ${mode} ${run}`);
  const sdk = { authorization: `Bearer ${project.sdkSecret}`, "x-svc-project": project.id };
  const policy = await fetch(`${cloudUrl}/v1/sdk/policy`, {
    method: "PUT",
    headers: { ...sdk, "content-type": "application/json" },
    body: JSON.stringify({ autoRevoke: { threshold: 3, windowMinutes: 10 } }),
  });
  await policy.body?.cancel();
  if (policy.status !== 200) throw new Error(`policy: ${policy.status}`);
  const svc = appFor(cloudUrl, dir, mode, `burst-${mode}-${run}`, project, () => project.sdkSecret);
  const app = await serve(withSvc(svc), { port: 0, hostname: "127.0.0.1" });
  try {
    await until("the policy read by the app", async () => (await svc.health()).autoRevoke !== null);
    const minted = await mint(app.url, `burst${run}`);
    const inTheFeed = async (): Promise<boolean> => {
      const res = await fetch(`${cloudUrl}/v1/sdk/keys/revocations?after=0`, { headers: sdk });
      const body = await res.json();
      return body.revocations.some((r: { keyId: string; reason: string }) =>
        r.keyId === minted.id && r.reason === "auto"
      );
    };
    let refusals = 0;
    let third = 0;
    let thirdCall = 0;
    let callsAfter = 0;
    let refused = LIMIT_MS;
    const start = performance.now();
    for (let call = 0; call < MAX_CALLS && performance.now() - start < LIMIT_MS; call++) {
      const { status } = await runAt(app.url, minted.key, "wipe");
      if (status === 401 && third > 0) {
        refused = performance.now() - third;
        callsAfter = call - thirdCall;
        break;
      }
      if (status === 403 && ++refusals === 3) {
        third = performance.now();
        thirdCall = call;
      }
      await new Promise((resolve) => setTimeout(resolve, CALL_EVERY_MS));
    }
    let inFeed = LIMIT_MS;
    if (third > 0) {
      while (performance.now() - third < LIMIT_MS) {
        if (await inTheFeed()) {
          inFeed = performance.now() - third;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
      }
    }
    return { refused: round(refused), inFeed: round(inFeed), callsAfter };
  } finally {
    await app.close();
    await svc.close();
  }
}

async function rotationRun(cloudUrl: string, storage: Storage, dir: string, mode: Mode, run: number): Promise<number> {
  const project = await newProject(storage, `rotation ${mode} ${run}`);
  const svc = appFor(cloudUrl, dir, mode, `rotation-${mode}-${run}`, project, () => project.sdkSecret);
  const app = await serve(withSvc(svc), { port: 0, hostname: "127.0.0.1" });
  try {
    const minted = await mint(app.url, `rotation${run}`);
    await until("the feed connected", async () => (await svc.health()).revocationFeed?.connected === true);
    if ((await runAt(app.url, minted.key, "ping")).status !== 200) throw new Error("the fresh key was refused");
    const start = performance.now();
    await rotateSdkSecret(storage, project.id);
    while (performance.now() - start < LIMIT_MS) {
      const answer = await runAt(app.url, minted.key, "ping");
      if (answer.status === 503) {
        if (answer.code !== "CLOUD_CREDENTIALS_REFUSED") throw new Error(`503 ${answer.code}`);
        return round(performance.now() - start);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
    return LIMIT_MS;
  } finally {
    await app.close();
    await svc.close();
  }
}

async function runAt(appUrl: string, key: string, intent: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${appUrl}/svc/agent/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ intent }),
  });
  const body = await res.json().catch(() => null);
  return { status: res.status, code: body?.error?.code };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function row(scenario: string, delays: number[], target: string, bound: number, extra = { note: "" }): Result {
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
    target,
    met: p99 < bound,
    p50Ms: at(0.5),
    p99Ms: p99,
    baselineIs: `${delays.length} runs (a run that never got there counts as ${LIMIT_MS} ms)${extra.note}`,
  };
}
