/**
 * The cloud's record of repeated refusals: a revoked key checked again and
 * again at `POST /v1/sdk/keys/verify` is written once per key and window, and
 * the repeats as a count, within a second (so a crash loses at most a second
 * of counts) and when the window closes.
 *
 * @module
 */
import { repeatedViolation, type Violation } from "../../core/contract/mod.ts";
import { createRefusalCoalescer } from "../../core/abuse/mod.ts";
import type { ViolationRepository } from "./violation_repository.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** The window of {@linkcode createCloudRefusals}: one minute. */
export const CLOUD_REFUSAL_WINDOW_MS = 60_000;
/** How long repeats are counted in memory at most before their count is written: one second. */
export const CLOUD_REPEATS_WRITTEN_WITHIN_MS = 1000;

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
 * @param log Where a failed write of counts is logged.
 * @param options The window (default {@linkcode CLOUD_REFUSAL_WINDOW_MS}) and how long repeats wait in memory at most
 *   (default {@linkcode CLOUD_REPEATS_WRITTEN_WITHIN_MS}).
 * @returns The record.
 */
export function createCloudRefusals(
  storage: { violations: Pick<ViolationRepository, "addViolation"> },
  log: ErrorLogger,
  options: { windowMs?: number; writtenWithinMs?: number } = {},
): CloudRefusals {
  const windowMs = options.windowMs ?? CLOUD_REFUSAL_WINDOW_MS;
  const windows = createRefusalCoalescer<{ projectId: string; violation: Violation }>({ windowMs });
  /** Pending: the write of the repeats counted in memory, at most a second after them. */
  let timer: ReturnType<typeof setTimeout> | undefined;
  function repeated(): void {
    timer ??= setTimeout(() => {
      timer = undefined;
      writeRepeats(true).catch((error) => log("Recording repeated refusals failed", error));
    }, options.writtenWithinMs ?? CLOUD_REPEATS_WRITTEN_WITHIN_MS);
  }

  async function writeRepeats(all: boolean): Promise<void> {
    for (const { item, repeats, since } of windows.closed(PLATFORM.now(), all)) {
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
      } else repeated();
      await writeRepeats(false);
    },
    flush() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      return writeRepeats(true);
    },
  };
}
