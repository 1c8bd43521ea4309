// Thousands of agents waiting in long polls with nothing to deliver: what they cost the server while idle.
import { readdirSync } from "node:fs";
import type { ServerProcess } from "../server_process.ts";
import type { BenchProject } from "./project.ts";
import { mintKeys } from "./agents.ts";

/** Polls per key: within the cloud's cap of concurrent polls per key. */
const POLLS_PER_KEY = 20;
/**
 * The polls' arrival is over once the server holds a socket for 99% of the polls (a socket of the keys' minting may
 * be one a poll reuses) and half a second uses less than this share of a core. A quiet half second alone is not
 * enough: while the load generator, on the same cores, is still opening connections, the server can be quiet for a
 * moment with hundreds of polls to come, whose arrival was then counted as idle (15% of a core once on Node)…
 */
const SETTLED_SHARE = 0.1;
/** …or after this long (the measuring window then still ends well before the polls' `wait=20`). */
const SETTLE_MAX_MS = 10_000;

/**
 * Opens `count` long polls (`wait=20`, 20 per key), waits until their arrival
 * is over (each one is authenticated and reads its inbox once: seconds of CPU
 * for thousands, which a fixed wait would count as idle time), lets them sit
 * idle for `seconds`, and measures the server's CPU time and resident memory
 * over that window against the same window before the polls; then releases them.
 *
 * @param server The cloud.
 * @param project Its project.
 * @param count How many polls.
 * @param seconds How long to measure.
 * @returns CPU share of one core while idle with and without polls, the extra memory, and the arrival's
 *   length and CPU time per poll.
 */
export async function idlePolls(server: ServerProcess, project: BenchProject, count: number, seconds: number): Promise<{
  cpuShare: number;
  baselineCpuShare: number;
  extraMb: number;
  idleMb: number;
  settleSeconds: number;
  arrivalCpuUsPerPoll: number;
}> {
  const keys = await mintKeys(
    server,
    project,
    Array.from({ length: Math.ceil(count / POLLS_PER_KEY) }, (_, i) => `idle-${i}`),
  );
  const window = async () => {
    const cpu = server.cpuSeconds();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    return (server.cpuSeconds() - cpu) / seconds;
  };
  await new Promise((r) => setTimeout(r, 500));
  const idleMb = server.rssMb();
  const baselineCpuShare = await window();
  const descriptors = () => readdirSync(`/proc/${server.pid}/fd`).length;
  const idleDescriptors = descriptors();
  const controller = new AbortController();
  let refused = 0;
  const polls = Array.from({ length: count }, (_, i) =>
    fetch(`${server.url}/v1/agent/inbox?wait=20`, {
      headers: { authorization: `Bearer ${keys[Math.floor(i / POLLS_PER_KEY)]}` },
      signal: controller.signal,
    }).then(async (res) => {
      if (res.status !== 200) refused++;
      await res.body?.cancel();
    }, () => {}));
  // Let every poll arrive and settle into waiting before measuring.
  const sent = Date.now();
  const sentCpu = server.cpuSeconds();
  await new Promise((r) => setTimeout(r, 1000));
  for (let cpu = server.cpuSeconds(); Date.now() - sent < SETTLE_MAX_MS;) {
    await new Promise((r) => setTimeout(r, 500));
    const used = server.cpuSeconds() - cpu;
    cpu += used;
    if (used / 0.5 < SETTLED_SHARE && descriptors() - idleDescriptors >= count * 0.99) break;
  }
  const settleSeconds = (Date.now() - sent) / 1000;
  const arrivalCpuUsPerPoll = (server.cpuSeconds() - sentCpu) / count * 1e6;
  const cpuShare = await window();
  const extraMb = server.rssMb() - idleMb;
  controller.abort();
  await Promise.all(polls);
  if (refused > 0) throw new Error(`idle polls: ${refused} of ${count} refused`);
  return { cpuShare, baselineCpuShare, extraMb, idleMb, settleSeconds, arrivalCpuUsPerPoll };
}
