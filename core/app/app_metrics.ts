/**
 * The app's metrics (`svc.metrics()`): requests by route and status (observed by the dispatcher), and gauges read
 * when the app's scraper asks: the activity records dropped, the outbox's items waiting and set aside, the revocation feed's lag, and the cloud
 * link's state (hybrid and cloud modes).
 *
 * @module
 */
import { ServiceMetrics } from "../metrics/mod.ts";
import type { CloudLinkState } from "../contract/mod.ts";
import type { OpenedSvc } from "./svc_parts.ts";
import type { SvcMode } from "./svc_config.ts";

/** Every state the cloud link can be in, each a series of its own (1 for the current one). */
const LINK_STATES: readonly CloudLinkState[] = ["following", "connecting", "never_connected", "stale", "refused"];

/**
 * The app's metrics.
 *
 * @param opened The app once its storage is open.
 * @param mode Its mode: local apps have no outbox, feed or link.
 * @returns The metrics.
 */
export function appMetrics(opened: Promise<OpenedSvc>, mode: SvcMode): ServiceMetrics {
  const metrics = new ServiceMetrics("svc_app");
  const parts = () => opened.catch(() => undefined);
  metrics.gauge(
    "activity_dropped",
    "Activity records dropped since the start: the buffer in memory was full, or their write failed",
    [],
    async () => {
      const activity = (await parts())?.deps.activity;
      return activity === undefined ? [] : [{ labels: {}, value: activity.dropped }];
    },
  );
  if (mode === "local") return metrics;
  metrics.gauge("outbox_items", "Items the outbox holds for the cloud, by state", ["state"], async () => {
    const app = await parts();
    const outbox = app?.cloudLink?.outbox;
    if (app === undefined || outbox === undefined) return [];
    const [waiting, setAside] = await Promise.all([app.storage.outboxSize(), outbox.setAside()]);
    return [
      { labels: { state: "waiting" }, value: waiting },
      { labels: { state: "set_aside" }, value: setAside.count },
    ];
  });
  metrics.gauge(
    "revocation_feed_lag_seconds",
    "Time since the start of the last completed poll of the cloud's revocation feed: how long a revocation may have gone unseen",
    [],
    async () => {
      const feed = (await parts())?.cloudLink?.follower.health();
      return feed === undefined ? [] : [{ labels: {}, value: feed.lagMs / 1000 }];
    },
  );
  metrics.gauge("cloud_link", "The link to the cloud: 1 for its current state", ["state"], async () => {
    const app = await parts();
    if (app === undefined) return [];
    const { cloud } = app.deps.link.health();
    return LINK_STATES.map((state) => ({ labels: { state }, value: state === cloud ? 1 : 0 }));
  });
  return metrics;
}
