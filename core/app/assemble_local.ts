/**
 * Local mode's assembly: the app's storage, its own keys, and what every mode runs on them. No cloud: the link's
 * checks pass and note nothing.
 *
 * @module
 */
import { joinLifetimes } from "../keys/mod.ts";
import type { AppLink } from "./routes/mod.ts";
import { localKeys } from "./local_keys.ts";
import { assembleRoutes } from "./assemble_routes.ts";
import type { Approvals } from "../approvals/mod.ts";
import { type OpenedSvc, openStorage, type SvcBuilt } from "./svc_parts.ts";
import type { LocalSvcConfig } from "./svc_config.ts";

/** Local mode's link: always heard, always accepted, healthy, nothing revoked at the cloud, no use to note. */
const NO_CLOUD_LINK: AppLink = {
  revocationsHeard() {},
  credentialsAccepted() {},
  health: () => ({ ok: true, mode: "local", cloud: null }),
  autoRevoked: () => false,
  used() {},
};

/**
 * Opens local mode: storage, local keys, then retention, the recorder and the routes' dependencies.
 *
 * @param built The checked configuration and what was built before storage.
 * @param config The local configuration.
 * @returns The parts, closed in reverse order by their `close`.
 */
export async function assembleLocal(built: SvcBuilt, config: LocalSvcConfig): Promise<OpenedSvc> {
  const { log, now } = built;
  const storage = await openStorage(built);
  try {
    // A revoked key's pending approvals are cancelled (`late.approvals` is set below, before any request).
    const late: { approvals?: Approvals } = {};
    const keys = localKeys(storage, {
      sharedInbox: config.sharedInbox ?? false,
      log,
      mirror: false,
      now,
      onRevoked: (keyId) => late.approvals?.cancelForKeys([keyId]),
    });
    const lifetime = { defaultDays: config.keys?.defaultLifetimeDays, maxDays: config.keys?.maxLifetimeDays };
    const { retention, recorder, activity, deps, approvals: modeApprovals } = assembleRoutes(built, {
      storage,
      keys,
      outbox: null,
      mirror: false,
      autoRevoke: config.autoRevoke ?? null,
      cloudPolicy: null,
      keyLifetime: () => Promise.resolve(joinLifetimes(lifetime)),
      link: NO_CLOUD_LINK,
      approvalStep: () => Promise.resolve(), // no cloud to tell
      cloud: null,
      activity: {
        keep: true,
        mirror: false,
      },
    });
    late.approvals = modeApprovals;
    const close = async (): Promise<void> => {
      await retention.close();
      await activity.close();
      await recorder.settle();
      await keys.close();
      await recorder.settle();
      await storage.close();
    };
    return { storage, keys, recorder, deps, cloudLink: null, close };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
