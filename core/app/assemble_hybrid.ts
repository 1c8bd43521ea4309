/**
 * Hybrid mode's assembly: the app keeps its keys (mirrored to the cloud), sends events and reports through the
 * outbox, follows the revocation feed, mirrors last use, counts the project's auto-revoke policy and uploads its
 * manifest; then what every mode runs on them.
 *
 * @module
 */
import { joinLifetimes } from "../keys/mod.ts";
import { mirrorLastUsed } from "../cloud_link/mod.ts";
import { localKeys } from "./local_keys.ts";
import { assembleRoutes } from "./assemble_routes.ts";
import { followFeed, openOutbox, startCloudSide } from "./assemble_link.ts";
import type { Approvals } from "../approvals/mod.ts";
import { type CloudLinkBuilt, type OpenedSvc, openStorage, type SvcBuilt } from "./svc_parts.ts";
import type { HybridSvcConfig } from "./svc_config.ts";
import { HYBRID_IN_MEMORY } from "./svc_config_schema.ts";
import { DEFAULT_MAX_REVOCATION_LAG_MS } from "./cloud_guard.ts";

/**
 * Opens hybrid mode, in dependency order: storage (a file or remote database), the policy's store, the outbox, local
 * keys mirrored through it, the feed's follower, the last-used mirror, the auto-revoke counter, the manifest upload,
 * what every mode runs, then the cloud guard.
 *
 * @param built The checked configuration and what was built before storage.
 * @param config The hybrid configuration.
 * @param link The cloud's client and policy.
 * @returns The parts, closed in reverse order by their `close`.
 */
export async function assembleHybrid(
  built: SvcBuilt,
  config: HybridSvcConfig,
  link: CloudLinkBuilt,
): Promise<OpenedSvc> {
  const { log, now } = built;
  const { client: cloud, policy } = link;
  const storage = await openStorage(built);
  try {
    if (await storage.inMemory()) throw new Error(HYBRID_IN_MEMORY); // an injected Client
    // The policy last read outlives a restart while the cloud cannot be read.
    await policy.attach({
      saved: () => storage.savedCloudPolicy(),
      save: (json) => storage.saveCloudPolicy(json, new Date(now()).toISOString()),
    });
    const outbox = openOutbox(built, link, storage);
    const sharedInbox = config.sharedInbox ?? false;
    // A revoked key's pending approvals are cancelled, here or by the feed (`late.approvals` is set below).
    const late: { approvals?: Approvals } = {};
    const keys = localKeys(storage, {
      sharedInbox,
      log,
      mirror: true,
      onQueued: () => outbox.kick(),
      now,
      onRevoked: (keyId) => late.approvals?.cancelForKeys([keyId]),
    });
    const maxLagMs = link.config.maxRevocationLagMs ?? DEFAULT_MAX_REVOCATION_LAG_MS;
    const follower = followFeed(
      built,
      link,
      storage,
      maxLagMs,
      (revocations) =>
        late.approvals?.cancelForKeys(revocations.map((r) => r.keyId)).catch((e) => log("approvals not cancelled", e)),
    );
    const lastUsed = mirrorLastUsed({ cloud, log, now });
    const { guard, routes } = startCloudSide(built, link, storage, {
      mode: "hybrid",
      scopes: config.scopes,
      outbox,
      follower,
      maxLagMs,
      revoke: async (keyId, userId) => {
        if (userId !== null) await keys.revoke(userId, keyId);
      },
      used: (keyId) => lastUsed.used(keyId),
    });
    const lifetime = { defaultDays: config.keys?.defaultLifetimeDays, maxDays: config.keys?.maxLifetimeDays };
    const { retention, recorder, activity, deps, approvals: modeApprovals } = assembleRoutes(built, {
      ...routes,
      storage,
      keys,
      autoRevoke: config.autoRevoke ?? null,
      // None is minted until the project's policy is known (read, or kept from an earlier run).
      keyLifetime: async () => joinLifetimes(lifetime, await policy.mintingKeyLifetime()),
      activity: {
        keep: true,
        mirror: true,
      },
    });
    late.approvals = modeApprovals;
    const close = async (): Promise<void> => {
      await retention.close();
      await activity.close();
      await recorder.settle();
      await guard.close();
      await follower.close();
      await lastUsed.close();
      await outbox.close();
      await keys.close();
      await recorder.settle();
      await storage.close();
    };
    return { storage, keys, recorder, deps, cloudLink: { outbox, follower }, close };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
