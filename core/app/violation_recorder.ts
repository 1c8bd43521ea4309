/**
 * Recording what an agent key was refused: each refusal becomes a violation,
 * repeated ones of one key and kind are coalesced into one row and a count per
 * window (whatever intent the agent names: a fresh name per request must not
 * cost a row each; the counts reach storage within a second, so a crash loses
 * at most a second of them), the rows go through the bounded violation queue,
 * the local auto-revoke policy is applied to what was stored, and the app's
 * `onViolation` is told of each one.
 *
 * @module
 */
import { type AutoRevokePolicy, countsToward } from "../contract/mod.ts";
import {
  REPEATED_INTENTS,
  repeatedViolation,
  type Violation,
  VIOLATION_SEVERITY,
  type ViolationKind,
} from "../contract/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { createRefusalCoalescer } from "../abuse/mod.ts";
import type { AppStorage } from "./storage/mod.ts";
import { createViolationQueue } from "../violations/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** The window in which repeated refusals of one key are recorded once, with a count: one minute. */
export const REFUSAL_WINDOW_MS = 60_000;
/** The most windows (of a key and a kind) tracked at once: past it the oldest is summarised and closed. */
export const REFUSAL_WINDOWS_MAX = 10_000;
/**
 * How long repeats are counted in memory at most before their count is stored (a summary row, queued for the
 * cloud in hybrid and cloud modes): a crash loses at most this much of the counts.
 */
export const REPEATS_STORED_WITHIN_MS = 1000;

/** A window's first refusal and the distinct intents named in it (a few, in order). */
interface Refusals {
  first: Violation;
  intents: string[];
}

/** Notes a repeat's intent, up to {@linkcode REPEATED_INTENTS}`.max` distinct ones. */
function withIntentOf(kept: Refusals, repeat: Refusals): Refusals {
  const intent = repeat.first.intent;
  if (intent !== null && kept.intents.length < REPEATED_INTENTS.max && !kept.intents.includes(intent)) {
    kept.intents.push(intent);
  }
  return kept;
}

/** What {@linkcode createViolationRecorder} is built from. */
export interface ViolationRecorderOptions {
  /** The app's storage, once open. */
  storage: () => AppStorage;
  /** Whether stored violations are queued for the cloud too (hybrid and cloud modes). */
  mirror: boolean;
  /** The local auto-revoke policy, if any. */
  autoRevoke?: AutoRevokePolicy;
  /**
   * The project's policy applied here (hybrid and cloud modes): refusals it counts are stored one by one
   * and counted as they happen; `reached` runs once a refusal made its key reach the threshold.
   */
  cloudPolicy?: {
    counts(violation: Pick<Violation, "kind" | "severity">): boolean;
    note(violation: Violation): boolean;
    reached(keyId: string, userId: string | null, settle: () => Promise<void>): void;
  };
  /** The app's callback for every recorded violation. */
  onViolation?: (violation: Violation) => void | Promise<void>;
  /** Called after a batch was stored (to send what waits for the cloud). */
  stored: () => void;
  /** Where failures go. */
  log: ErrorLogger;
  /** Milliseconds since the epoch. Default `Date.now` (tests inject one). */
  now?: () => number;
  /** How long repeats are counted in memory at most before their count is stored. Default {@linkcode REPEATS_STORED_WITHIN_MS}. */
  storedWithinMs?: number;
}

/** Records violations. */
export interface ViolationRecorder {
  /** Records one refusal; never waits. */
  record(violation: Violation): void;
  /**
   * Counts a refusal as a repeat of its key's open window for that kind, without
   * building its violation: the cheap path of a refused request. Never waits.
   *
   * @param keyId The refused key.
   * @param kind What it was refused for.
   * @param intent The intent it named, as sent (`null` for none).
   * @returns `false` when the refusal must be recorded in full with {@linkcode ViolationRecorder.record}
   *   (no open window, a policy that counts it, or an intent the window does not name yet).
   */
  repeat(keyId: string, kind: ViolationKind, intent: string | null): boolean;
  /** Stores every pending count and waits until everything recorded so far is written and told. */
  settle(): Promise<void>;
}

/**
 * Creates the recorder.
 *
 * @param options Storage, mirroring, policy, callback and logger.
 * @returns The recorder.
 */
export function createViolationRecorder(options: ViolationRecorderOptions): ViolationRecorder {
  const { mirror, autoRevoke, onViolation, log, cloudPolicy } = options;
  const inFlight = new Set<Promise<unknown>>();
  const now = options.now ?? PLATFORM.now;
  const refusals = createRefusalCoalescer<Refusals>({
    windowMs: REFUSAL_WINDOW_MS,
    maxEntries: REFUSAL_WINDOWS_MAX,
    merge: withIntentOf,
    now,
  });
  /** The kinds whose every refusal the local policy counts (the policy never changes): none is a mere repeat. */
  const countedLocally = new Set<ViolationKind>(
    autoRevoke === undefined
      ? []
      : (Object.keys(VIOLATION_SEVERITY) as ViolationKind[]).filter((kind) =>
        kind !== "REVOKED_KEY" && countsToward(autoRevoke, { kind, severity: VIOLATION_SEVERITY[kind] })
      ),
  );
  /**
   * The window of each key and kind is found by one text (`keyId NUL kind`), kept here per key id: a repeat then
   * builds and hashes no new text (a key's id is the same string from request to request while its record is
   * kept). Bounded as the windows are: past that many key ids it starts again.
   */
  const windowKeys = new Map<string, Record<string, string>>();
  function windowOf(keyId: string, kind: string): string {
    let ofKey = windowKeys.get(keyId);
    if (ofKey === undefined) {
      if (windowKeys.size >= REFUSAL_WINDOWS_MAX) windowKeys.clear();
      windowKeys.set(keyId, ofKey = Object.create(null) as Record<string, string>);
    }
    return ofKey[kind] ??= `${keyId}\u0000${kind}`;
  }
  const queue = createViolationQueue({
    write: async (batch) => {
      await options.storage().insertViolations(batch, { mirror });
      if (autoRevoke) await applyAutoRevoke(autoRevoke, batch);
      options.stored();
    },
    log,
  });

  /** The local auto-revoke policy, after a batch of violations was stored. */
  async function applyAutoRevoke(policy: AutoRevokePolicy, batch: readonly Violation[]): Promise<void> {
    const keyIds = new Set(batch.filter((v) => countsToward(policy, v)).map((v) => v.keyId));
    for (const keyId of keyIds) {
      const revoked = await options.storage().autoRevoke(keyId, policy, new Date(now()).toISOString(), {
        mirror,
      });
      if (revoked) notify(revoked);
    }
  }

  function store(violation: Violation): void {
    queue.add(violation);
    notify(violation);
  }

  function notify(violation: Violation): void {
    if (onViolation === undefined) return;
    const work = Promise.resolve().then(() => onViolation(violation)).catch((e) => log("onViolation failed", e));
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  }

  /** Pending: the store of the repeats counted in memory, at most {@linkcode REPEATS_STORED_WITHIN_MS} after them. */
  let repeatsTimer: ReturnType<typeof setTimeout> | undefined;
  /** A repeat was counted in memory: its count is stored within a second. */
  function repeated(): void {
    repeatsTimer ??= setTimeout(() => {
      repeatsTimer = undefined;
      storeRepeats(true);
    }, options.storedWithinMs ?? REPEATS_STORED_WITHIN_MS);
  }

  /** Stores the counts of closed windows (of every window, with `all`). */
  function storeRepeats(all = false): void {
    for (const { item, repeats, since } of refusals.closed(now(), all)) {
      store(repeatedViolation(item.first, repeats, new Date(since).toISOString(), item.intents));
    }
  }

  /** Whether the auto-revoke policy counts it (a revoked key's refusals never count: it is revoked already). */
  function countedByPolicy(violation: Violation): boolean {
    if (cloudPolicy?.counts(violation)) return true;
    return autoRevoke !== undefined && violation.kind !== "REVOKED_KEY" && countsToward(autoRevoke, violation);
  }

  async function settle(): Promise<void> {
    if (repeatsTimer !== undefined) clearTimeout(repeatsTimer);
    repeatsTimer = undefined;
    storeRepeats(true);
    await queue.flush();
    await Promise.allSettled([...inFlight, queue.flush()]);
  }

  return {
    // A refusal the policy counts is stored every time, so that the policy revokes at exactly the
    // threshold: at most `threshold` rows per key and policy window, then the key is revoked.
    record(violation) {
      // Per key and kind only (the kind fixes the severity): the intent is the agent's to choose.
      const key = windowOf(violation.keyId, violation.kind);
      const refusal = { first: violation, intents: violation.intent === null ? [] : [violation.intent] };
      const counted = countedByPolicy(violation);
      if (counted || refusals.note(key, refusal)) store(violation);
      else repeated();
      if (counted && cloudPolicy?.note(violation)) cloudPolicy.reached(violation.keyId, violation.userId, settle);
      storeRepeats();
    },
    repeat(keyId, kind, intent) {
      if (countedLocally.has(kind)) return false;
      if (cloudPolicy?.counts({ kind, severity: VIOLATION_SEVERITY[kind] })) return false;
      // The same folding as `record`: a repeat whose intent the window would add to its list goes the full way.
      const named = intent === null || intent === "" ? null : intent;
      const key = windowOf(keyId, kind);
      if (named !== null) {
        const open = refusals.peek(key);
        if (open === undefined) return false;
        if (open.intents.length < REPEATED_INTENTS.max && !open.intents.includes(named)) return false;
      }
      if (refusals.repeat(key) === undefined) return false;
      repeated();
      // `repeat` closed what expired at this time: only then is there a summary to store (no array, no clock read).
      if (refusals.summaries > 0) storeRepeats();
      return true;
    },
    settle,
  };
}
