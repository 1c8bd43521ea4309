/**
 * The project's auto-revoke policy applied where the refusals happen (hybrid and cloud modes): every
 * refusal the app records is counted one by one with the one counting rule (`violationWeight`: a coalesced
 * summary of N repeats counts N), per key over the policy's window. The refusal that reaches the threshold
 * marks the key refused at once, in memory, before anything is written; then the counted reports are
 * pushed to the cloud, whose own auto-revoke revokes the key (reason `auto`, an `AUTO_REVOKED` violation,
 * an audit entry by `system`), and the app revokes it through its own key service as well (the hybrid
 * store and its mirror, or cloud mode's revoke), so the key stays refused if the cloud cannot be reached.
 *
 * @module
 */
import { type AutoRevokePolicy, countsToward, type Violation } from "../contract/mod.ts";
import { violationWeight } from "../violations/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { Outbox } from "../cloud_link/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Options of {@linkcode createCloudAutoRevoke}. */
export interface CloudAutoRevokeOptions {
  /** The policy in force now (`null`: off). */
  policy: () => AutoRevokePolicy | null;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The counting. */
export interface CloudAutoRevoke {
  /** Whether the policy counts a refusal of this kind and severity (so it must be recorded in full). */
  counts(violation: Pick<Violation, "kind" | "severity">): boolean;
  /** Counts one recorded refusal; `true` when it made its key reach the threshold (once per key). */
  note(violation: Violation): boolean;
  /** Whether the key reached the threshold here (refused at once, before the revoke is written). */
  refused(keyId: string): boolean;
}

/**
 * Creates the counting.
 *
 * @param options The policy, the hook and the clock.
 * @returns The counting.
 */
export function createCloudAutoRevoke(options: CloudAutoRevokeOptions): CloudAutoRevoke {
  const now = options.now ?? PLATFORM.now;
  /** Counted refusals per key: when, and their weight. */
  const counted = new Map<string, { at: number; weight: number }[]>();
  const reached = new Set<string>();

  function counts(violation: Pick<Violation, "kind" | "severity">): boolean {
    const policy = options.policy();
    return policy !== null && violation.kind !== "REVOKED_KEY" && countsToward(policy, violation);
  }

  return {
    counts,
    note(violation) {
      const policy = options.policy();
      if (policy === null || !counts(violation) || reached.has(violation.keyId)) return false;
      const at = now();
      const since = at - policy.windowMinutes * 60_000;
      const kept = (counted.get(violation.keyId) ?? []).filter((c) => c.at > since);
      kept.push({ at, weight: violationWeight(violation) });
      const total = kept.reduce((sum, c) => sum + c.weight, 0);
      if (total < policy.threshold) {
        counted.set(violation.keyId, kept);
        return false;
      }
      counted.delete(violation.keyId);
      reached.add(violation.keyId);
      return true;
    },
    refused: (keyId) => reached.has(keyId),
  };
}

/**
 * What runs once when a key reaches the threshold, after it is refused in memory.
 *
 * @param keyId The key.
 * @param userId Its owner, when the app knows it.
 * @param settle Stores every pending violation (the counted ones among them): the recorder's own.
 */
export type ThresholdReached = (keyId: string, userId: string | null, settle: () => Promise<void>) => void;

/** What {@linkcode revokeAtThreshold} uses. */
export interface RevokeAtThresholdOptions {
  /** Sends them to the cloud, whose own auto-revoke then revokes the key (reason `auto`). */
  outbox: Outbox | undefined;
  /** Revokes the key through the app's key service (the hybrid store and its mirror, or the cloud's revoke). */
  revoke: (keyId: string, userId: string | null) => Promise<void>;
  /** Where a failure is logged. */
  log: ErrorLogger;
}

/**
 * What the app does once a key reached the project's threshold (it is already refused in memory): push the
 * counted reports first, so the cloud revokes the key itself (reason `auto`, `AUTO_REVOKED`, an audit entry by
 * `system`), then revoke it through the app's key service too, which holds while the cloud is down.
 *
 * @param options The outbox, the revoke and the logger.
 * @returns What the violation recorder calls, with its settle, when a refusal it recorded made a key reach it.
 */
export function revokeAtThreshold(options: RevokeAtThresholdOptions): ThresholdReached {
  return (keyId, userId, settle) => {
    void (async () => {
      try {
        await settle();
        await options.outbox?.sync();
        await options.revoke(keyId, userId);
      } catch (error) {
        options.log(`key ${keyId} reached the project's auto-revoke threshold; its revoke could not be written`, error);
      }
    })();
  };
}
