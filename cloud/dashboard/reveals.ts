/**
 * A secret shown once after a redirect: the form's answer redirects to a page
 * that takes the secret out of this short-lived, in-memory holder and shows
 * it, so a reload finds nothing. Never written to storage or a log.
 *
 * @module
 */
import { mintSecret } from "../../core/contract/mod.ts";
import { BoundedMap } from "../../core/cache/mod.ts";

/** What is revealed: the project and its new sdkSecret. */
export interface Reveal {
  /** The project. */
  projectId: string;
  /** The plaintext sdkSecret. */
  sdkSecret: string;
}

/** Holds secrets until they are shown once. */
export interface Reveals {
  /** Keeps a secret; the id to take it with. */
  put(reveal: Reveal, now: number): string;
  /** The secret, once; `null` after that, after the time limit, or for another project. */
  take(id: string, projectId: string, now: number): Reveal | null;
}

/** Secrets held at most; the oldest go first. */
const MAX_HELD = 1000;

/**
 * Creates a holder.
 *
 * @param ttlMs How long a secret waits to be shown, in milliseconds.
 * @returns The holder.
 */
export function createReveals(ttlMs = 60_000): Reveals {
  // The callers give the time: the map's clock is the latest `now` seen.
  let clock = 0;
  const held = new BoundedMap<string, Reveal>({ maxEntries: MAX_HELD, ttlMs, now: () => clock });
  return {
    put(reveal, now) {
      clock = now;
      held.prune();
      const id = mintSecret("");
      held.set(id, { ...reveal });
      return id;
    },
    take(id, projectId, now) {
      clock = now;
      const r = held.peek(id);
      held.delete(id);
      if (!r || r.projectId !== projectId) return null;
      return { projectId: r.projectId, sdkSecret: r.sdkSecret };
    },
  };
}
