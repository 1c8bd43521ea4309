// Agents against a running cloud: the inbox cycle (poll 200, ack 200) and
// 1,000 agents waiting in long polls.
import type { ServerProcess } from "../server_process.ts";
import type { BenchProject } from "./project.ts";

type Json = Record<string, never>;

/** One JSON call; throws on a status of 300 or more. */
export async function call(server: ServerProcess, path: string, auth: Record<string, string>, body?: unknown) {
  const res = await fetch(server.url + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json() as Json;
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** SDK auth headers. */
export function sdk(project: BenchProject): Record<string, string> {
  return { authorization: `Bearer ${project.sdkSecret}`, "x-svc-project": project.projectId };
}

/** Mints one key per agentId (16 at a time). */
export async function mintKeys(server: ServerProcess, project: BenchProject, agents: string[]): Promise<string[]> {
  const keys: string[] = new Array(agents.length);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < agents.length) {
      const i = next++;
      const body = { userId: agents[i], name: "bench", scopes: [] };
      keys[i] = (await call(server, "/v1/sdk/keys", sdk(project), body)).key;
    }
  }));
  return keys;
}

async function emit(server: ServerProcess, project: BenchProject, agentIds: string[], prefix: string): Promise<void> {
  for (let at = 0; at < agentIds.length; at += 500) {
    const events = agentIds.slice(at, at + 500).map((agentId, i) => ({
      eventId: `${prefix}-${at + i}`,
      type: "order.paid",
      agentId,
      payload: { order: at + i },
    }));
    await call(server, "/v1/events/batch", sdk(project), { events });
  }
}

/**
 * Emits `items` events to 4 agents, then has each agent poll 200 and ack
 * them until its inbox is empty, all four at once.
 *
 * @returns Items acknowledged per second, and the emit rate for reference.
 */
export async function inboxCycle(
  server: ServerProcess,
  project: BenchProject,
  items: number,
): Promise<{ itemsPerSec: number; emitPerSec: number }> {
  const agents = ["cycle-0", "cycle-1", "cycle-2", "cycle-3"];
  const keys = await mintKeys(server, project, agents);
  const targets = Array.from({ length: items }, (_, i) => agents[i % agents.length]);
  let started = performance.now();
  await emit(server, project, targets, `cycle-${Date.now()}`);
  const emitPerSec = items / ((performance.now() - started) / 1000);
  started = performance.now();
  let acknowledged = 0;
  await Promise.all(keys.map(async (key) => {
    const auth = { authorization: `Bearer ${key}` };
    for (;;) {
      const { items } = await call(server, "/v1/agent/inbox?limit=200", auth) as unknown as {
        items: { inboxId: number }[];
      };
      if (items.length === 0) return;
      const answer = await call(server, "/v1/agent/ack", auth, { inboxIds: items.map((i) => i.inboxId) });
      acknowledged += answer.acknowledged as number;
    }
  }));
  if (acknowledged !== items) throw new Error(`inbox cycle acknowledged ${acknowledged} of ${items}`);
  return { itemsPerSec: items / ((performance.now() - started) / 1000), emitPerSec };
}

/** p50 and p99 of some values. */
export function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = values.slice().sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length * 0.5)], p99: sorted[Math.floor(sorted.length * 0.99)] };
}

/**
 * Holds `count` agents in long polls, measures the server's extra memory, then
 * emits one event per agent (one request each, one after another) and times
 * each delivery from the start of its emit. With `emitTo`, the events go to
 * that server (another process on the same database file).
 *
 * @returns Idle and extra RSS, and the emit-to-delivery delays.
 */
export async function longPoll(
  server: ServerProcess,
  project: BenchProject,
  count: number,
  emitTo: ServerProcess = server,
): Promise<{
  idleMb: number;
  extraMb: number;
  delay: { p50: number; p99: number };
  singleDelay: { p50: number; p99: number };
}> {
  const where = emitTo === server ? "same" : "cross";
  const agents = Array.from({ length: count }, (_, i) => `waiting-${where}-${i}`);
  const keys = await mintKeys(server, project, agents);
  const prefix = `poll-${Date.now()}`;
  const cycle = async (indexes: number[], label: string): Promise<number[]> => {
    const emittedAt = new Map<number, number>();
    const polls = indexes.map(async (i) => {
      const res = await fetch(`${server.url}/v1/agent/inbox?wait=20`, {
        headers: { authorization: `Bearer ${keys[i]}` },
      });
      const { items } = await res.json() as { items: unknown[] };
      const at = performance.now();
      if (items.length !== 1) throw new Error(`long poll got ${items.length} items`);
      return at - emittedAt.get(i)!;
    });
    await new Promise((resolve) => setTimeout(resolve, Math.max(500, indexes.length)));
    if (label === "many") memory.during = server.rssMb();
    for (const i of indexes) {
      emittedAt.set(i, performance.now());
      await call(emitTo, "/v1/events", sdk(project), {
        eventId: `${prefix}-${label}-${i}`,
        type: "order.paid",
        agentId: agents[i],
        payload: { i },
      });
    }
    return await Promise.all(polls);
  };
  const memory = { idle: 0, during: 0 };
  const single: number[] = [];
  for (let round = 0; round < 20; round++) single.push(...await cycle([round], `one-${round}`));
  await new Promise((resolve) => setTimeout(resolve, 500));
  memory.idle = server.rssMb();
  const delays = await cycle(agents.map((_, i) => i), "many");
  return {
    idleMb: memory.idle,
    extraMb: memory.during - memory.idle,
    delay: percentiles(delays),
    singleDelay: percentiles(single),
  };
}
