// The figures of issue 34's findings 1-3 (OAuth grants), bounded, on real libSQL and a cloud on a socket:
// 1. a client refreshing back to back while its user revokes (3 rounds of DELETE /svc/keys/:id of the key listed):
//    in how many of 10 runs does a token keep working (local and cloud mode);
// 2. one refresh token presented twice at once: in how many of 30 runs does an access token still run an intent;
// 3. runs in 10 s with a plain key vs a client that refreshes on each 429 (limit 600 a minute), and the user's key
//    listing after 200 refreshes (token endpoint limit off).
// Run: `deno run -A bench/oauth_grants_probe.ts` (or node). Prints one line per figure.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc } from "../mod.ts";
import { asAgent, asUser, mint, notesSvc, run } from "../tests/fixtures/notes_svc.ts";
import { startCloudServer } from "../tests/fixtures/servers.ts";
import { grantOf, refreshOnce } from "../tests/fixtures/oauth_app.ts";

const oauth = { tokenRequestsPerGrant: false as const };

async function stormWhileRevoking(
  svc: Svc,
  user: string,
  revoke?: () => Promise<unknown>,
): Promise<boolean> {
  const first = await grantOf(svc.handle, user);
  let tokens = { access: first.access, refresh: first.refresh };
  let stopped = false;
  const storm = (async () => {
    for (let i = 0; i < 600 && !stopped; i++) {
      const next = await refreshOnce(svc.handle, first.clientId, tokens.refresh);
      if (next.status === 429) continue; // the client retries (with the default limits)
      if (next.status !== 200) return;
      tokens = { access: next.access!, refresh: next.refresh! };
    }
  })();
  for (let round = 0; round < 3; round++) {
    if (revoke) {
      await revoke();
      continue;
    }
    const keys = (await (await asUser(svc, user, "GET", "/svc/keys")).json()).keys;
    const live = keys.find((k: { revokedAt: string | null }) => k.revokedAt === null) ?? keys.at(-1);
    if (live) await asUser(svc, user, "DELETE", `/svc/keys/${live.id}`);
  }
  // A second for the revoke to reach every process, then the client tries once more.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  stopped = true;
  await storm;
  const next = await refreshOnce(svc.handle, first.clientId, tokens.refresh);
  const access = next.access ?? tokens.access;
  return (await asAgent(svc, access, "GET", "/svc/agent/intents")).status === 200;
}

async function figureOne(): Promise<void> {
  const local = notesSvc({ oauth });
  let survived = 0;
  for (let i = 0; i < 10; i++) if (await stormWhileRevoking(local, `u${i}`)) survived++;
  await local.close();
  console.log(`1. local: a token kept working after the user's revokes in ${survived}/10 runs`);

  const dir = mkdtempSync(join(tmpdir(), "grants-probe-"));
  const cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
  const svc = notesSvc({ mode: "cloud", storage: `file:${join(dir, "app.db")}`, cloud: cloud.appConfig(), oauth });
  await svc.ready;
  survived = 0;
  for (let i = 0; i < 10; i++) if (await stormWhileRevoking(svc, `c${i}`)) survived++;
  console.log(`1. cloud: a token kept working after the user's revokes in ${survived}/10 runs`);
  await svc.close();

  // The default token limits: a client refreshing back to back gets 10 refreshes a minute.
  const hybrid = notesSvc({
    mode: "hybrid",
    storage: `file:${join(dir, "hybrid.db")}`,
    cloud: cloud.appConfig(),
    oauth: {},
  });
  await hybrid.ready;
  survived = 0;
  for (let i = 0; i < 10; i++) {
    const user = `h${i}`;
    if (await stormWhileRevoking(hybrid, user, () => cloud.sdk("DELETE", `/v1/sdk/keys?userId=${user}`))) survived++;
  }
  console.log(
    `1. hybrid (default limits): a token kept working after the operator's revoke-all (3 rounds) in ${survived}/10 runs`,
  );
  await hybrid.close();
  await cloud.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function figureTwo(): Promise<void> {
  const svc = notesSvc({ oauth });
  let working = 0;
  for (let i = 0; i < 30; i++) {
    const first = await grantOf(svc.handle, `r${i}`);
    const both = await Promise.all([
      refreshOnce(svc.handle, first.clientId, first.refresh),
      refreshOnce(svc.handle, first.clientId, first.refresh),
    ]);
    const tokens = [first.access, ...both.map((r) => r.access)].filter((t) => t !== undefined) as string[];
    let works = false;
    for (const t of tokens) if ((await run(svc, t, "notes.list")).status === 200) works = true;
    if (works) working++;
  }
  await svc.close();
  console.log(`2. local: after a replayed refresh an access token still ran intents in ${working}/30 runs`);
}

async function figureThree(): Promise<void> {
  const svc = notesSvc({ oauth: {} });
  const plain = (await mint(svc, "alice", ["notes:read"])).key;
  let plainRuns = 0;
  for (const end = Date.now() + 10_000; Date.now() < end;) {
    if ((await run(svc, plain, "notes.list")).status === 200) plainRuns++;
  }
  const first = await grantOf(svc.handle, "bob");
  let tokens = { access: first.access, refresh: first.refresh };
  let grantRuns = 0;
  for (const end = Date.now() + 10_000; Date.now() < end;) {
    const res = await run(svc, tokens.access, "notes.list");
    if (res.status === 200) grantRuns++;
    else if (res.status === 429) {
      const next = await refreshOnce(svc.handle, first.clientId, tokens.refresh);
      if (next.status === 200) tokens = { access: next.access!, refresh: next.refresh! };
    }
  }
  await svc.close();
  console.log(`3. local: runs in 10 s at 600/min: plain key ${plainRuns}, refreshing on each 429 ${grantRuns}`);

  const unlimited = notesSvc({ oauth });
  const grant = await grantOf(unlimited.handle, "carol");
  let refresh = grant.refresh;
  const started = performance.now();
  for (let i = 0; i < 200; i++) refresh = (await refreshOnce(unlimited.handle, grant.clientId, refresh)).refresh!;
  const perRefresh = (performance.now() - started) / 200;
  const listing = await (await asUser(unlimited, "carol", "GET", "/svc/keys")).text();
  console.log(
    `3. local: after 200 refreshes the user's listing holds ${JSON.parse(listing).keys.length} keys ` +
      `(${listing.length} bytes); a refresh took ${perRefresh.toFixed(1)} ms on average`,
  );
  await unlimited.close();
}

await figureOne();
await figureTwo();
await figureThree();
