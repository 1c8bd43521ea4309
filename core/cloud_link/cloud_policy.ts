/**
 * The project's auto-revoke policy as a hybrid or cloud-mode app follows it: read from the cloud
 * (`GET /v1/sdk/policy`) at start and again every few seconds, so a change made in the dashboard, with
 * `project policy` or `PUT /v1/sdk/policy` reaches running apps within {@linkcode POLICY_REFRESH_MS}.
 * While the cloud cannot be read the last policy read stays in force, across a restart too once a store is attached
 * (a hybrid app keeps it in its own storage); until one is known, a hybrid app mints no key
 * ({@linkcode CloudPolicy.mintingKeyLifetime}), since it cannot tell the project's bounds of a key's lifetime.
 *
 * @module
 */
import type { AutoRevokePolicy, KeyLifetimePolicy } from "../contract/mod.ts";
import { SvcError } from "../errors/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { type AppPolicy, appPolicySchema, type CloudClient } from "./cloud_client.ts";

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
  /**
   * The bounds of a key's lifetime for a key about to be minted: after the first read has settled, and only once a
   * policy is known (read from the cloud, or restored from the attached store).
   *
   * @throws {SvcError} `CLOUD_UNAVAILABLE` (503, `Retry-After`) while no policy is known.
   */
  mintingKeyLifetime(): Promise<KeyLifetimePolicy | null>;
  /** Settles after the first read (or its failure). */
  read: Promise<void>;
  /**
   * Keeps each policy read in `store` from now on (the one read already too) and, while none has been read,
   * restores the one it kept.
   *
   * @param store Where the policy is kept between runs.
   * @returns When the kept policy has been looked at.
   */
  attach(store: PolicyStore): Promise<void>;
  /** Stops reading. */
  close(): void;
}

/** Where the policy last read is kept between runs (the app's storage), as JSON. */
export interface PolicyStore {
  /** The policy kept, or `null`. */
  saved(): Promise<string | null>;
  /** Keeps this policy. */
  save(policy: string): Promise<void>;
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
  /** Read from the cloud at least once; `restored`: taken from the store while not. */
  let heard = false;
  let restored = false;
  let store: PolicyStore | undefined;
  /** The JSON last kept in the store (not written again while unchanged). */
  let kept: string | null = null;
  let failing = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function keep(): Promise<void> {
    const json = JSON.stringify({ autoRevoke: policy, keyLifetime } satisfies AppPolicy);
    if (store === undefined || json === kept) return;
    kept = json;
    await store.save(json).catch((error) => log("the project's policy could not be kept in storage", error));
  }

  async function readOnce(): Promise<void> {
    try {
      ({ autoRevoke: policy, keyLifetime } = await cloud.appPolicy());
      heard = true;
      failing = false;
    } catch (error) {
      if (!failing) log("the project's auto-revoke policy cannot be read from the cloud; keeping the last one", error);
      failing = true;
      return;
    }
    await keep();
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
    async mintingKeyLifetime() {
      if (!heard && !restored) await read;
      if (heard || restored) return keyLifetime;
      throw new SvcError(
        "CLOUD_UNAVAILABLE",
        "The project's key policy has not been read from the cloud yet: keys can be minted once it has",
        { headers: { "retry-after": String(Math.ceil((options.refreshMs ?? POLICY_REFRESH_MS) / 1000)) } },
      );
    },
    read,
    async attach(to) {
      store = to;
      if (heard) return await keep();
      const saved = await to.saved().catch((error) => log("the project's kept policy could not be read", error));
      if (typeof saved !== "string" || heard) return;
      kept = saved;
      const parsed = appPolicySchema.safeParse(parsedJson(saved));
      if (!parsed.success) return; // a row no schema of this version reads: as if none were kept
      ({ autoRevoke: policy, keyLifetime: keyLifetime = null } = parsed.data);
      restored = true;
    },
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
