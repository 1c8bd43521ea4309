/**
 * Coalesces repeated refusals: the first refusal of a caller in a window is
 * recorded at once, the repeats are only counted, in memory, and each window
 * that saw repeats yields one summary when it closes. An agent that hammers
 * with a revoked key thus costs at most two writes per key and window, however
 * many requests it sends. Memory is bounded: past `maxEntries`, the oldest
 * window is closed early (and summarised).
 *
 * @module
 */
import { BoundedMap } from "../cache/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Options of {@linkcode createRefusalCoalescer}. */
export interface RefusalCoalescerOptions<T> {
  /** The window, in milliseconds. */
  windowMs: number;
  /** Most windows tracked at once. Default 10000. */
  maxEntries?: number;
  /** Folds a repeat into what its window keeps (by default the first item is kept as it is). */
  merge?: (kept: T, repeat: T) => T;
  /** Milliseconds since the epoch, when `note` or `closed` is given no time. Default `Date.now` (tests inject one). */
  now?: () => number;
}

/** The repeats of one closed window. */
export interface RepeatedRefusals<T> {
  /** What was noted first in the window (with the repeats folded in, given `merge`). */
  item: T;
  /** Refusals after the first. */
  repeats: number;
  /** When the window opened (milliseconds since the epoch). */
  since: number;
}

/** Counts refusals per caller and window. */
export interface RefusalCoalescer<T> {
  /**
   * Notes a refusal of `caller`.
   *
   * @returns `true` when it opens a window (record it), `false` when it is a repeat (counted only).
   */
  note(caller: string, item: T, now?: number): boolean;
  /**
   * Counts a refusal of `caller` as a repeat when a window of it is open, without
   * building the item (nothing else changes when none is).
   *
   * @returns What the open window keeps (for the caller to fold the repeat into), or `undefined`.
   */
  repeat(caller: string, now?: number): T | undefined;
  /** What the window of `caller` keeps, if one is tracked; changes nothing. */
  peek(caller: string): T | undefined;
  /**
   * Takes the repeats of windows that have closed (or, with `all`, of every window,
   * which then goes on without them, its next summary counting from `now`).
   */
  closed(now?: number, all?: boolean): RepeatedRefusals<T>[];
  /** How many windows are tracked. */
  readonly size: number;
  /** How many closed windows' summaries wait to be taken by `closed` (a repeat that closes nothing leaves it at 0). */
  readonly summaries: number;
}

interface Window<T> {
  item: T;
  since: number;
  repeats: number;
}

/**
 * Creates a coalescer.
 *
 * @param options The window and the memory bound.
 * @returns The coalescer.
 * @throws {RangeError} When `windowMs` is not positive.
 */
export function createRefusalCoalescer<T>(options: RefusalCoalescerOptions<T>): RefusalCoalescer<T> {
  const { windowMs, merge, now: clock = PLATFORM.now } = options;
  if (!(windowMs > 0)) throw new RangeError("windowMs must be > 0");
  const done: RepeatedRefusals<T>[] = [];
  const summarise = (w: Window<T>): void => {
    if (w.repeats > 0) done.push({ item: w.item, repeats: w.repeats, since: w.since });
  };
  /** The time of the call being served: windows expire `windowMs` after they opened. */
  let servedAt = 0;
  /**
   * The time windows were last pruned at. Windows are kept in the order they opened, all with the same lifetime,
   * so once pruned at a time none left has expired by it (a window opened since expires later): pruning again at
   * the same time would find nothing, and is skipped (a burst of refusals shares a clock value).
   */
  let prunedAt = Number.NaN;
  const prune = (now: number): void => {
    servedAt = now;
    if (now === prunedAt) return;
    prunedAt = now;
    windows.prune();
  };
  // Read with peek only, so the oldest windows come first; a window closed early or expired is summarised.
  const windows = new BoundedMap<string, Window<T>>({
    maxEntries: options.maxEntries ?? 10_000,
    ttlMs: windowMs,
    now: () => servedAt,
    onEvict: (_caller, w) => summarise(w),
  });

  return {
    note(caller, item, now = clock()) {
      prune(now);
      const w = windows.peek(caller);
      if (w !== undefined) {
        w.repeats++;
        if (merge) w.item = merge(w.item, item);
        return false;
      }
      windows.set(caller, { item, since: now, repeats: 0 });
      return true;
    },
    repeat(caller, now = clock()) {
      prune(now);
      const w = windows.peek(caller);
      if (w === undefined) return undefined;
      w.repeats++;
      return w.item;
    },
    peek(caller) {
      return windows.peek(caller)?.item;
    },
    closed(now = clock(), all = false) {
      prune(now);
      if (all) {
        for (const [, w] of windows.entries()) {
          summarise(w);
          w.repeats = 0;
          w.since = now; // the next summary of this window counts from here
        }
      }
      return done.splice(0);
    },
    get size() {
      return windows.size;
    },
    get summaries() {
      return done.length;
    },
  };
}
