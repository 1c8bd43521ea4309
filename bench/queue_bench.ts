// The inbox as a queue (issue 40): 8 workers of one agent drain 100,000 events over 127.0.0.1, each worker polling
// with `lease=60&limit=10` and acknowledging each page by its lease ids; against one cloud process, then two cloud
// processes on one database file (the workers alternate between them). Measured: throughput (items acknowledged per
// second), duplicates handed out while leased (an item handed to a worker while another holds it: must be 0), p99
// of a hand-out (the poll's latency). Next to it, today's cursor polling by the same 8 workers (each its own cursor,
// from 0): what a shared inbox hands out twice without leases.
// Run alone: `node bench/queue_bench.ts [--events=N]`, or within `npm run bench -- --only=queue`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createClient } from "@libsql/client";
import { createProject } from "../cloud/projects/projects.ts";
import { openCloudStorage } from "../cloud/open_cloud_storage.ts";
import type { Result } from "./result.ts";
import { runtimeCommand, type ServerProcess, startServer } from "./server_process.ts";

const WORKERS = 8;
const PAGE = 10;

interface Run {
  seconds: number;
  acknowledged: number;
  duplicates: number;
  p99Ms: number;
  p50Ms: number;
}

/**
 * Measures leased and cursor polling of one inbox by 8 workers.
 *
 * @param options How many events.
 * @returns The rows: leased on 1 and 2 processes, cursor polling on 1.
 */
export async function queueBench(options: { events: number }): Promise<Result[]> {
  const results: Result[] = [];
  const cursor = await scenario(options.events, 1, "cursor");
  for (const processes of [1, 2]) {
    const leased = await scenario(options.events, processes, "lease");
    const where = processes === 1 ? "1 cloud process" : "2 cloud processes on one file";
    results.push({
      scenario: `queue: ${WORKERS} workers, leased polls, ${where} (items/s)`,
      runtime: "node",
      value: Math.round(leased.acknowledged / leased.seconds),
      unit: "items/s",
      baseline: Math.round(cursor.acknowledged / cursor.seconds),
      ratio: Math.round((leased.acknowledged / leased.seconds) / (cursor.acknowledged / cursor.seconds) * 100) / 100,
      target: "0 duplicates while leased",
      met: leased.duplicates === 0 && leased.acknowledged === options.events,
      p50Ms: leased.p50Ms,
      p99Ms: leased.p99Ms,
      baselineIs: `cursor polling, 1 process: ${cursor.duplicates} items handed to 2+ workers, p99 ${cursor.p99Ms} ms`,
    });
    console.error(
      `queue ${where}: ${results.at(-1)!.value} items/s, duplicates while leased ${leased.duplicates}, ` +
        `hand-out p50 ${leased.p50Ms} ms p99 ${leased.p99Ms} ms (cursor: ${results.at(-1)!.baseline} items/s, ` +
        `${cursor.duplicates} handed out twice or more, p99 ${cursor.p99Ms} ms)`,
    );
  }
  return results;
}

async function scenario(events: number, processes: number, mode: "lease" | "cursor"): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-queue-"));
  const db = `file:${join(dir, "cloud.db")}`;
  const client = createClient({ url: db });
  const storage = await openCloudStorage(client);
  const { project, sdkSecret } = await createProject(storage, "queue");
  await storage.close();
  client.close();
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      servers.push(
        await startServer(
          [
            ...runtimeCommand("node", "cloud/main.ts"),
            "serve",
            "--port",
            "0",
            "--db",
            db,
            "--no-dashboard",
            "--rate-limit-agent",
            "0",
            "--rate-limit-project",
            "0",
          ],
          /listening on http:\/\/127\.0\.0\.1:(\d+)/,
        ),
      );
    }
    const sdk = {
      authorization: `Bearer ${sdkSecret}`,
      "x-svc-project": project.id,
      "content-type": "application/json",
    };
    const minted = await (await fetch(`${servers[0].url}/v1/sdk/keys`, {
      method: "POST",
      headers: sdk,
      body: JSON.stringify({ userId: "worker", name: "bench", scopes: [] }),
    })).json();
    const agent = { authorization: `Bearer ${minted.key}`, "content-type": "application/json" };
    for (let i = 0; i < events; i += 500) {
      const batch = Array.from({ length: Math.min(500, events - i) }, (_, j) => ({
        eventId: `e-${i + j}`,
        type: "job",
        agentId: minted.agentId,
        payload: { n: i + j },
      }));
      const res = await fetch(`${servers[0].url}/v1/events/batch`, {
        method: "POST",
        headers: sdk,
        body: JSON.stringify({ events: batch }),
      });
      if (res.status !== 202) throw new Error(`emit: ${res.status} ${await res.text()}`);
    }
    const held = new Set<number>();
    const handedOut = new Map<number, number>();
    const latencies: number[] = [];
    let duplicates = 0;
    let acknowledged = 0;
    const started = performance.now();
    const worker = async (w: number) => {
      const url = servers[w % servers.length].url;
      let cursor = 0;
      for (;;) {
        const query = mode === "lease" ? `lease=60&limit=${PAGE}` : `cursor=${cursor}&limit=${PAGE}`;
        const t0 = performance.now();
        const res = await fetch(`${url}/v1/agent/inbox?${query}`, { headers: agent });
        const page = await res.json();
        latencies.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`poll: ${res.status} ${JSON.stringify(page)}`);
        const items: { inboxId: number; leaseId?: string }[] = page.items;
        if (items.length === 0) return;
        for (const item of items) {
          if (held.has(item.inboxId)) duplicates++;
          held.add(item.inboxId);
          handedOut.set(item.inboxId, (handedOut.get(item.inboxId) ?? 0) + 1);
        }
        cursor = page.nextCursor;
        const body = mode === "lease"
          ? { leaseIds: items.map((i) => i.leaseId) }
          : { inboxIds: items.map((i) => i.inboxId) };
        const ack =
          await (await fetch(`${url}/v1/agent/ack`, { method: "POST", headers: agent, body: JSON.stringify(body) }))
            .json();
        acknowledged += ack.acknowledged;
        for (const item of items) held.delete(item.inboxId);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] * 10) / 10;
    // Cursor polling: what matters is how many items went to two or more workers.
    const twice = [...handedOut.values()].filter((n) => n > 1).length;
    return {
      seconds,
      acknowledged,
      duplicates: mode === "lease" ? duplicates : twice,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
    };
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main || process.argv[1]?.endsWith("queue_bench.ts")) {
  const events = Number(process.argv.find((a) => a.startsWith("--events="))?.slice(9) ?? 100_000);
  const rows = await queueBench({ events });
  console.log(JSON.stringify(rows, null, 2));
}
