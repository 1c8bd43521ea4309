/**
 * Cloud mode's assembly: keys kept by the cloud (verified there, cached here and dropped when the feed reports a
 * revoke), the outbox for reports, the feed's follower, the auto-revoke counter and the manifest upload; then what
 * every mode runs on them. The app's storage holds the outbox, the violations and OAuth's grants.
 *
 * @module
 */
import { joinLifetimes } from "../keys/mod.ts";
import { cloudKeys } from "../cloud_link/mod.ts";
import { assembleRoutes } from "./assemble_routes.ts";
import { followFeed, openOutbox, startCloudSide } from "./assemble_link.ts";
import type { Approvals } from "../approvals/mod.ts";
import { type CloudLinkBuilt, type OpenedSvc, openStorage, type SvcBuilt } from "./svc_parts.ts";
import type { CloudSvcConfig } from "./svc_config.ts";

/**
 * Opens cloud mode, in dependency order: storage, the outbox, the cloud's keys, the feed's follower (which drops the
 * cached verifications of revoked keys), the auto-revoke counter, the manifest upload, what every mode runs, then the
 * cloud guard.
 *
 * @param built The checked configuration and what was built before storage.
 * @param config The cloud mode configuration.
 * @param link The cloud's client and policy.
 * @returns The parts, closed in reverse order by their `close`.
 */
export async function assembleCloud(built: SvcBuilt, config: CloudSvcConfig, link: CloudLinkBuilt): Promise<OpenedSvc> {
  const { log, now } = built;
  const cloud = link.client;
  const storage = await openStorage(built);
  try {
    const outbox = openOutbox(built, link, storage);
    const sharedInbox = config.sharedInbox ?? false;
    const late: { approvals?: Approvals } = {};
    const keys = cloudKeys(cloud, { sharedInbox, cacheTtlMs: config.cloud.keyCacheTtlMs, now });
    // Each key is checked at the cloud: the feed only drops cached verifications, so it has no bound.
    const maxLagMs = false;
    const follower = followFeed(built, link, storage, maxLagMs, (revocations) => {
      revocations.forEach((r) => keys.dropRevoked(r.keyId, r.revokedAt));
      // A revoked key's pending approvals are cancelled (`late.approvals` is set below).
      late.approvals?.cancelForKeys(revocations.map((r) => r.keyId)).catch((e) => log("approvals not cancelled", e));
    });
    const { guard, routes } = startCloudSide(built, link, storage, {
      mode: "cloud",
      scopes: config.scopes,
      outbox,
      follower,
      maxLagMs,
      revoke: async (keyId) => {
        keys.dropRevoked(keyId, new Date(now()).toISOString());
        await cloud.revokeKey(keyId);
      },
      used() {},
    });
    const lifetime = { defaultDays: config.keys?.defaultLifetimeDays, maxDays: config.keys?.maxLifetimeDays };
    const { retention, recorder, activity, deps, approvals: modeApprovals } = assembleRoutes(built, {
      ...routes,
      storage,
      keys,
      autoRevoke: null,
      // The cloud applies the project's policy to the keys it mints.
      keyLifetime: () => Promise.resolve(joinLifetimes(lifetime, null)),
      activity: {
        keep: false,
        mirror: true,
        readCloud: (userId, query) => cloud.listActivity({ userId, ...query }),
      },
    });
    late.approvals = modeApprovals;
    const close = async (): Promise<void> => {
      await retention.close();
      await activity.close();
      await recorder.settle();
      await guard.close();
      await follower.close();
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
