/**
 * A secret shown once after a redirect: the form's answer redirects to a page
 * that takes the secret out of this short-lived, in-memory holder and shows
 * it, so a reload finds nothing. Never written to storage or a log.
 *
 * @module
 */
import { mintSecret } from "../../core/contract/mod.ts";

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

const MAX_HELD = 1000;

/**
 * Creates a holder.
 *
 * @param ttlMs How long a secret waits to be shown, in milliseconds.
 * @returns The holder.
 */
export function createReveals(ttlMs = 60_000): Reveals {
  const held = new Map<string, Reveal & { until: number }>();
  return {
    put(reveal, now) {
      for (const [id, r] of held) if (r.until < now || held.size >= MAX_HELD) held.delete(id);
      const id = mintSecret("");
      held.set(id, { ...reveal, until: now + ttlMs });
      return id;
    },
    take(id, projectId, now) {
      const r = held.get(id);
      held.delete(id);
      if (!r || r.until < now || r.projectId !== projectId) return null;
      return { projectId: r.projectId, sdkSecret: r.sdkSecret };
    },
  };
}
