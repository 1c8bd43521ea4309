// Thousands of agents waiting in long polls with nothing to deliver: what they cost the server while idle.
import type { ServerProcess } from "../server_process.ts";
import type { BenchProject } from "./project.ts";
import { mintKeys } from "./agents.ts";

/** Polls per key: within the cloud's cap of concurrent polls per key. */
const POLLS_PER_KEY = 20;

/**
 * Opens `count` long polls (`wait=20`, 20 per key), lets them sit idle for
 * `seconds`, and measures the server's CPU time and resident memory over that
 * window against the same window before the polls; then releases them.
 *
 * @param server The cloud.
 * @param project Its project.
 * @param count How many polls.
 * @param seconds How long to measure.
 * @returns CPU share of one core while idle with and without polls, and the extra memory.
 */
export async function idlePolls(server: ServerProcess, project: BenchProject, count: number, seconds: number): Promise<{
  cpuShare: number;
  baselineCpuShare: number;
  extraMb: number;
  idleMb: number;
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
  await new Promise((r) => setTimeout(r, Math.max(1000, count / 2)));
  const cpuShare = await window();
  const extraMb = server.rssMb() - idleMb;
  controller.abort();
  await Promise.all(polls);
  if (refused > 0) throw new Error(`idle polls: ${refused} of ${count} refused`);
  return { cpuShare, baselineCpuShare, extraMb, idleMb };
}
