/**
 * The cloud's record of repeated refusals: a revoked key checked again and
 * again at `POST /v1/sdk/keys/verify` is written once per key and window, and
 * the repeats once more, as a count, when the window closes.
 *
 * @module
 */
import { repeatedViolation, type Violation } from "../../core/contract/mod.ts";
import { createRefusalCoalescer } from "../../core/abuse/mod.ts";
import type { ViolationRepository } from "./violation_repository.ts";

/** The window of {@linkcode createCloudRefusals}: one minute. */
export const CLOUD_REFUSAL_WINDOW_MS = 60_000;

/** Records refusals, coalesced. */
export interface CloudRefusals {
  /** Records a refusal of the project's key: written when it opens a window, else counted. */
  record(projectId: string, violation: Violation): Promise<void>;
  /** Writes the counts of every window. */
  flush(): Promise<void>;
}

/**
 * Creates the record.
 *
 * @param storage Where violations are written.
 * @param windowMs The window. Default {@linkcode CLOUD_REFUSAL_WINDOW_MS}.
 * @returns The record.
 */
export function createCloudRefusals(
  storage: { violations: Pick<ViolationRepository, "addViolation"> },
  windowMs = CLOUD_REFUSAL_WINDOW_MS,
): CloudRefusals {
  const windows = createRefusalCoalescer<{ projectId: string; violation: Violation }>({ windowMs });

  async function writeRepeats(all: boolean): Promise<void> {
    for (const { item, repeats, since } of windows.closed(Date.now(), all)) {
      await storage.violations.addViolation(
        item.projectId,
        repeatedViolation(item.violation, repeats, new Date(since).toISOString()),
      );
    }
  }

  return {
    async record(projectId, violation) {
      if (windows.note(`${projectId}\u0000${violation.keyId}\u0000${violation.kind}`, { projectId, violation })) {
        await storage.violations.addViolation(projectId, violation);
      }
      await writeRepeats(false);
    },
    flush: () => writeRepeats(true),
  };
}
