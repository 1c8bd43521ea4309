// What 5,000 idle long polls cost a Deno server, part by part: `Deno.serve` alone holding as many waiting requests,
// the same through adapters/deno.ts (its native server), and the cloud (`cloud/main.ts serve`, real long polls). Each server
// runs with `--inspect` on 127.0.0.1 so that the collector can be run before memory is read (RSS without a collection
// says more about when V8 last collected than about what a poll holds).
//   node bench/cloud/idle_memory.ts [count=5000] [seconds=3] [parts=bare,adapter,cloud] [cloud checkout=.]
// Per connection, after a forced collection: RSS, V8 heap used, external (ArrayBuffers); the server's CPU once the
// polls' arrival is over, by thread. Bounded: count requests per server, seconds of measuring, 127.0.0.1 only.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, setGlobalDispatcher } from "undici";
import { mintKeys } from "./agents.ts";
import { benchProject } from "./project.ts";
import { runtimeCommand, type ServerProcess, startServer } from "../server_process.ts";

const count = Number(process.argv[2] ?? 5000);
const seconds = Number(process.argv[3] ?? 3);
const parts = (process.argv[4] ?? "bare,adapter,cloud").split(",");
const cloud = process.argv[5] ?? ".";
setGlobalDispatcher(new Agent({ connections: count * 2 }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A Chrome DevTools Protocol session with the server's inspector. */
async function inspector(port: number) {
  const [{ webSocketDebuggerUrl }] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(webSocketDebuggerUrl);
  await new Promise((r) => ws.onopen = r);
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (m) => {
    const message = JSON.parse(String(m.data));
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  };
  const call = (method: string, params = {}) =>
    new Promise<{ result?: { value?: string } }>((r) => {
      waiting.set(++id, r as never);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    /** Memory in MB after two full collections. */
    async memory() {
      await call("HeapProfiler.collectGarbage");
      await call("HeapProfiler.collectGarbage");
      const r = await call("Runtime.evaluate", {
        expression: "JSON.stringify(Deno.memoryUsage())",
        returnByValue: true,
      });
      return JSON.parse(r.result!.value!) as { rss: number; heapUsed: number; external: number };
    },
    close: () => ws.close(),
  };
}

/** CPU seconds of each thread of a process, by thread name. */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return out;
}

async function measure(label: string, file: string, args: string[], cloud?: { db: string }) {
  const inspect = await freePort();
  const [bin, , , path] = runtimeCommand("deno", file);
  const project = cloud ? await benchProject(cloud.db) : undefined;
  const server: ServerProcess = await startServer(
    [bin, "run", "-A", `--inspect=127.0.0.1:${inspect}`, path, ...args],
    /listening on http:\/\/[^:]+:(\d+)/,
  );
  const controller = new AbortController();
  let polls: Promise<void>[] = [];
  const session = await inspector(inspect).catch(async (error) => {
    await server.stop();
    throw error;
  });
  try {
    const keys = project
      ? await mintKeys(server, project, Array.from({ length: Math.ceil(count / 20) }, (_, i) => `idle-${i}`))
      : [];
    await sleep(500);
    const before = await session.memory();
    const sent = server.cpuSeconds();
    polls = Array.from(
      { length: count },
      (_, i) =>
        fetch(project ? `${server.url}/v1/agent/inbox?wait=20` : server.url, {
          headers: project ? { authorization: `Bearer ${keys[Math.floor(i / 20)]}` } : {},
          signal: controller.signal,
        }).then((res) => res.body?.cancel(), () => {}),
    );
    // The arrival is over once half a second uses less than a tenth of a core (at most 10 s).
    const started = Date.now();
    await sleep(1000);
    for (let cpu = server.cpuSeconds(); Date.now() - started < 10_000;) {
      await sleep(500);
      const used = server.cpuSeconds() - cpu;
      cpu += used;
      if (used < 0.05) break;
    }
    const arrival = (server.cpuSeconds() - sent) / count * 1e6;
    const t0 = threads(server.pid);
    await sleep(seconds * 1000);
    const t1 = threads(server.pid);
    const cpu = [...t1].map(([name, s]) => [name, (s - (t0.get(name) ?? 0)) / seconds] as const)
      .filter(([, share]) => share > 0).map(([name, share]) => `${name} ${(share * 100).toFixed(1)}%`);
    const held = await session.memory();
    const kb = (key: "rss" | "heapUsed" | "external") => ((held[key] - before[key]) / 1024 / count).toFixed(1);
    console.log(
      `${label}: ${count} waiting requests, per connection after a collection: RSS ${kb("rss")} KB, ` +
        `V8 heap ${kb("heapUsed")} KB, external ${kb("external")} KB; extra RSS ${
          ((held.rss - before.rss) / 1048576).toFixed(1)
        } MB; arrival ${Math.round(arrival)} µs of CPU a request; settled CPU: ${cpu.join(", ") || "0%"}`,
    );
  } finally {
    controller.abort();
    await Promise.all(polls);
    session.close();
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), "svc-idle-memory-"));
try {
  const server = "bench/cloud/hanging_server.ts";
  if (parts.includes("bare")) await measure("Deno.serve alone", server, ["bare"]);
  if (parts.includes("adapter")) await measure("adapters/deno.ts (native server)", server, ["adapter"]);
  if (parts.includes("cloud")) {
    const db = `file:${join(dir, "cloud.db")}`;
    const args = ["serve", "--port", "0", "--host", "127.0.0.1", "--db", db];
    await measure(`cloud (${cloud}/cloud/main.ts serve, long polls)`, join(cloud, "cloud/main.ts"), args, { db });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
