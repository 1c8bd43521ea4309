/**
 * The project's auto-revoke policy as a hybrid or cloud-mode app follows it: read from the cloud
 * (`GET /v1/sdk/policy`) at start and again every few seconds, so a change made in the dashboard, with
 * `project policy` or `PUT /v1/sdk/policy` reaches running apps within {@linkcode POLICY_REFRESH_MS}.
 * While the cloud cannot be read the last policy read stays in force.
 *
 * @module
 */
import type { AutoRevokePolicy, KeyLifetimePolicy } from "../../contract/mod.ts";
import type { ErrorLogger } from "../../logging/mod.ts";
import type { CloudClient } from "./cloud_client.ts";

/** How often the policy is read again, by default: 5 s. */
export const POLICY_REFRESH_MS = 5_000;

/** Options of {@linkcode followCloudPolicy}. */
export interface CloudPolicyOptions {
  /** The cloud. */
  cloud: CloudClient;
  /** Where a first failure to read it is logged. */
  log: ErrorLogger;
  /** Milliseconds between two reads. Default {@linkcode POLICY_REFRESH_MS}. */
  refreshMs?: number;
}

/** The policy being followed. */
export interface CloudPolicy {
  /** The policy last read (`null`: off, or not read yet). */
  current(): AutoRevokePolicy | null;
  /** The bounds of a key's lifetime last read (`null`: none, or not read yet). */
  keyLifetime(): KeyLifetimePolicy | null;
  /** Settles after the first read (or its failure). */
  read: Promise<void>;
  /** Stops reading. */
  close(): void;
}

/**
 * Starts following the project's policy.
 *
 * @param options The cloud, the logger and the period.
 * @returns The policy in force.
 */
export function followCloudPolicy(options: CloudPolicyOptions): CloudPolicy {
  const { cloud, log } = options;
  let policy: AutoRevokePolicy | null = null;
  let keyLifetime: KeyLifetimePolicy | null = null;
  let failing = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function readOnce(): Promise<void> {
    try {
      ({ autoRevoke: policy, keyLifetime } = await cloud.appPolicy());
      failing = false;
    } catch (error) {
      if (!failing) log("the project's auto-revoke policy cannot be read from the cloud; keeping the last one", error);
      failing = true;
    }
  }

  function schedule(): void {
    if (closed) return;
    timer = setTimeout(() => readOnce().then(schedule), options.refreshMs ?? POLICY_REFRESH_MS);
    (timer as { unref?: () => void }).unref?.();
  }

  const read = readOnce().then(schedule);
  return {
    current: () => policy,
    keyLifetime: () => keyLifetime,
    read,
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
