/**
 * What the cloud's `/v1/metrics` exposes beyond requests by route and status: the database's latency, and gauges read
 * from the database when a scraper asks (nothing is counted on a request's path for them): each project's inbox depth
 * and its oldest waiting item, the apps following each project's revocation feed, how far each app is behind the
 * feed and how long since it was seen, the outbox depth each app reported, and each project's revocations by reason.
 *
 * @module
 */
import type { DatabaseOperation } from "../../core/db/mod.ts";
import { type GaugeReading, ServiceMetrics } from "../../core/metrics/mod.ts";
import { APP_STALE_AFTER_MS } from "../apps/mod.ts";
import type { InboxReads } from "../inbox/mod.ts";
import type { RevocationStorage } from "../keys/mod.ts";
import type { AppRepository } from "../apps/mod.ts";

/** What the gauges read: three aggregate queries, each owned by its feature's repository. */
export interface MetricsReads {
  /** The inboxes' waiting items by project. */
  inbox: Pick<InboxReads, "waitingByProject">;
  /** The revocation feed by project and reason. */
  keys: Pick<RevocationStorage, "revocationsByReason">;
  /** Every app that follows a feed. */
  apps: Pick<AppRepository, "listAllApps">;
}

/** The cloud's metrics, and what the database tells of its own latency. */
export interface CloudMetrics {
  /** The metrics (requests are observed by the dispatcher). */
  metrics: ServiceMetrics;
  /** Told how long each database call took. */
  observeDatabase(operation: DatabaseOperation, seconds: number): void;
  /** Registers the gauges read from `storage` at each scrape; called once the storage is open. */
  readFrom(storage: Promise<MetricsReads>): void;
}

/**
 * The cloud's metrics.
 *
 * @param now The clock, in milliseconds.
 * @returns The metrics and their feeds.
 */
export function cloudMetrics(now: () => number): CloudMetrics {
  const metrics = new ServiceMetrics("svc_cloud");
  const observeDatabase = metrics.timer(
    "db_call_duration_seconds",
    "Time of each database call: a statement, a batch, or a transaction from its start to its commit; lock_wait: " +
      "the time a call waited for another process's write lock on the file (several nodes on one file)",
    "operation",
  );
  return {
    metrics,
    observeDatabase,
    readFrom(opened) {
      const read = <T>(query: (storage: MetricsReads) => Promise<T>) => opened.then(query);
      metrics.gauge(
        "inbox_waiting_items",
        "Inbox items not yet acknowledged, by project",
        ["project"],
        async () =>
          (await read((s) => s.inbox.waitingByProject())).map((row) => ({
            labels: { project: row.projectId },
            value: row.waiting,
          })),
      );
      metrics.gauge(
        "inbox_oldest_waiting_seconds",
        "Age of the oldest inbox item not yet acknowledged, by project",
        ["project"],
        async () =>
          (await read((s) => s.inbox.waitingByProject())).map((row) => ({
            labels: { project: row.projectId },
            value: Math.max(0, (now() - Date.parse(row.oldestAt)) / 1000),
          })),
      );
      metrics.gauge(
        "revocations",
        "Revocations in the feed, by project and reason",
        ["project", "reason"],
        async () =>
          (await read((s) => s.keys.revocationsByReason())).map((row) => ({
            labels: { project: row.projectId, reason: row.reason },
            value: row.count,
          })),
      );
      const apps = async () => {
        const [all, feed] = await Promise.all([
          read((s) => s.apps.listAllApps()),
          read((s) => s.keys.revocationsByReason()),
        ]);
        const latest = new Map(feed.map((row) => [row.projectId, row.latestSeq]));
        return all.map((app) => ({
          ...app,
          behind: Math.max(0, (latest.get(app.projectId) ?? 0) - app.cursor),
          silentSeconds: Math.max(0, (now() - Date.parse(app.lastSeenAt)) / 1000),
        }));
      };
      metrics.gauge(
        "feed_followers",
        "Apps that polled the project's revocation feed within the last minute",
        ["project"],
        async () => {
          const counts = new Map<string, number>();
          for (const app of await apps()) {
            if (app.silentSeconds * 1000 > APP_STALE_AFTER_MS) continue;
            counts.set(app.projectId, (counts.get(app.projectId) ?? 0) + 1);
          }
          return [...counts].map(([project, value]): GaugeReading => ({ labels: { project }, value }));
        },
      );
      metrics.gauge(
        "feed_app_behind_revocations",
        "Revocations an app has not yet read from its project's feed (its lag, in revocations)",
        ["project", "instance", "app"],
        async () =>
          (await apps()).map((app) => ({
            labels: { project: app.projectId, instance: app.instanceId, app: app.label },
            value: app.behind,
          })),
      );
      metrics.gauge(
        "feed_app_last_poll_seconds",
        "Seconds since an app's last poll of its project's revocation feed (its lag, in time)",
        ["project", "instance", "app"],
        async () =>
          (await apps()).map((app) => ({
            labels: { project: app.projectId, instance: app.instanceId, app: app.label },
            value: app.silentSeconds,
          })),
      );
      metrics.gauge(
        "app_outbox_items",
        "Items an app's outbox held for the cloud at its latest recorded feed poll, as the app reported them",
        ["project", "instance", "app"],
        async () =>
          (await apps()).flatMap((app) =>
            app.outboxDepth === null ? [] : [{
              labels: { project: app.projectId, instance: app.instanceId, app: app.label },
              value: app.outboxDepth,
            }]
          ),
      );
    },
  };
}
