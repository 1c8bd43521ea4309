/**
 * When retention runs: a purge at once, then every interval, one at a time, on a timer that alone does not keep
 * the process running.
 *
 * @module
 */

/** A running purge schedule. */
export interface PurgeSchedule {
  /** Purges now, or joins the purge under way. */
  purge(): Promise<void>;
  /** Stops the timer and waits for a purge under way. */
  close(): Promise<void>;
}

/** Calls `tick` every `ms` until the returned function is called. Tests inject one to run the intervals by hand. */
export type PurgeTimer = (tick: () => void, ms: number) => () => void;

/** The real timer, unreferenced (on Deno 2, Node and Bun): it alone never keeps the process running. */
const unreferencedInterval: PurgeTimer = (tick, ms) => {
  const timer = setInterval(tick, ms);
  // Deno (2.x), Node and Bun all return a timer with `unref()`; elsewhere (a browser) there is nothing to hold.
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
};

/** The longest time between two purges, by default: an hour. */
export const MAX_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs `purge` at once, then every `intervalMs`; a run never starts while another is under way. The timer is
 * unreferenced (on Deno 2, Node and Bun): it alone never keeps the process running, and `close()` stops it.
 *
 * @param purge The purge; it logs its own failures and never rejects.
 * @param intervalMs Milliseconds between two runs.
 * @param every The timer (default an unreferenced `setInterval`).
 * @returns The schedule.
 *
 * @example Purge at start, then hourly
 * ```ts ignore
 * const schedule = schedulePurge(() => storage.purgeOld().catch(log), MAX_PURGE_INTERVAL_MS);
 * await schedule.purge(); // joins the first run
 * await schedule.close();
 * ```
 */
export function schedulePurge(
  purge: () => Promise<void>,
  intervalMs: number,
  every: PurgeTimer = unreferencedInterval,
): PurgeSchedule {
  let running: Promise<void> | undefined;
  function run(): Promise<void> {
    running ??= purge().finally(() => {
      running = undefined;
    });
    return running;
  }
  const stop = every(run, intervalMs);
  run();
  return {
    purge: run,
    async close() {
      stop();
      await running;
    },
  };
}
