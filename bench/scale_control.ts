// The control for bench/scale_bench.ts's events rows: what three nodes cost on this machine when they share nothing.
// Single events/s and the nodes' CPU an event (user + system, /proc) with 8 connections on one node, spread 3+3+2 over
// three `cloud/main.ts serve` processes on one database file, the same over three processes each on a file of its own,
// and 3 connections on one node (the load one of the three sees). Alternated over two rounds.
//   node bench/scale_control.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchProject, benchProject } from "./cloud/project.ts";
import { runtimeCommand, type ServerProcess, startServer } from "./server_process.ts";
import { runWrk } from "./wrk.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-scale-control-"));
const start = (db: string) =>
  startServer(
    [
      ...runtimeCommand("deno", "cloud/main.ts"),
      "serve",
      ...["--port", "0", "--host", "127.0.0.1", "--db", db, "--rate-limit-project", "0"],
    ],
    /listening on http:\/\/[^:]+:(\d+)/,
  );
const nodes: ServerProcess[] = [];
let run = 0;

/** Loads each target with wrk at once; prints events/s, the nodes' CPU an event and the worst p99. */
async function load(label: string, targets: { node: ServerProcess; project: BenchProject; c: number }[], seconds = 4) {
  run++;
  const before = targets.map((t) => t.node.cpuSeconds());
  const each = await Promise.all(targets.map((t, i) =>
    runWrk(`${t.node.url}/v1/events`, {
      script: "events.lua",
      env: {
        SECRET: t.project.sdkSecret,
        PROJECT: t.project.projectId,
        AGENTS: "4",
        BATCH: "1",
        PREFIX: `r${run}n${i}`,
      },
      seconds,
      connections: t.c,
    })
  ));
  const cpu = targets.reduce((s, t, i) => s + t.node.cpuSeconds() - before[i], 0);
  const rps = each.reduce((s, r) => s + r.rps, 0);
  if (label === "") return;
  console.log(
    `${label}: ${Math.round(rps)} events/s, ${Math.round(cpu / (rps * seconds) * 1e6)} µs of node CPU an event, ` +
      `worst p99 ${Math.max(...each.map((r) => r.p99))} ms`,
  );
}

try {
  const sharedDb = `file:${join(dir, "shared.db")}`;
  const shared = await benchProject(sharedDb);
  const ownDbs = [0, 1, 2].map((i) => `file:${join(dir, `own${i}.db`)}`);
  const own: BenchProject[] = [];
  for (const db of ownDbs) own.push(await benchProject(db));
  for (let i = 0; i < 3; i++) nodes.push(await start(sharedDb));
  for (const db of ownDbs) nodes.push(await start(db));
  const spread = [3, 3, 2];
  const oneFile = [0, 1, 2].map((i) => ({ node: nodes[i], project: shared, c: spread[i] }));
  const ownFiles = [0, 1, 2].map((i) => ({ node: nodes[3 + i], project: own[i], c: spread[i] }));
  await load("", oneFile, 1); // warm every node
  await load("", ownFiles, 1);
  for (let round = 0; round < 2; round++) {
    await load("1 node, 8 connections", [{ node: nodes[0], project: shared, c: 8 }]);
    await load("3 nodes on one file, 3+3+2", oneFile);
    await load("3 nodes on a file each, 3+3+2", ownFiles);
    await load("1 node, 3 connections", [{ node: nodes[0], project: shared, c: 3 }]);
  }
} finally {
  for (const node of nodes) await node.stop();
  rmSync(dir, { recursive: true, force: true });
}
