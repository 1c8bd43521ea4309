/**
 * The connected apps service: records each app instance's feed polls (at most
 * one write per instance every few seconds, so a long-polling app does not write
 * on every poll), lists a project's apps with their state, purges the silent
 * ones, and takes the `lastUsedAt` a hybrid app mirrors.
 *
 * @module
 */
import { BoundedMap } from "../../core/cache/mod.ts";
import type { ProjectRepository } from "../projects/mod.ts";
import { appIdentity } from "./app_identity.ts";
import type { KeyRepository, KeyUse } from "../keys/mod.ts";
import type { AppRepository, StoredApp } from "./app_repository.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** A poll less than this long after the recorded one, with nothing else changed, is not written. */
export const APP_SEEN_INTERVAL_MS = 5_000;
/** An app not seen for longer than this is `stale`. */
export const APP_STALE_AFTER_MS = 60_000;
/** An app not seen for longer than this is dropped by the purge: 7 days. */
export const APP_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** The most app instances whose last write this process remembers. */
const REMEMBERED_APPS = 10_000;

/** Whether an app follows the revocation feed now. */
export type AppState = "following" | "stale" | "rotated_out";

/** An app instance as listed. */
export interface ConnectedApp extends StoredApp {
  /** `following`, `stale` (not seen for over a minute) or `rotated_out` (last seen before the latest rotation). */
  state: AppState;
}

/** What the routes and the dashboard do with connected apps. */
export interface AppService {
  /**
   * Records a feed poll that passed SDK auth and was admitted, from its headers, at its cursor (no further than the
   * project's latest revocation); a poll without an instance id stores nothing.
   */
  seen(projectId: string, headers: Headers, cursor: number): Promise<void>;
  /** The project's app instances, most recently seen first, with their state now. */
  list(projectId: string): Promise<ConnectedApp[]>;
  /** Deletes the app instances not seen since `before`. */
  purge(before: string): Promise<number>;
  /** Mirrors a hybrid app's key uses (a use in the future counts as now); the count of keys updated. */
  mirrorKeyUses(projectId: string, uses: readonly KeyUse[]): Promise<number>;
}

/** Options of {@linkcode createAppService}. */
export interface AppServiceOptions {
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
  /** Where a failed poll record goes: the poll itself is still answered. */
  logger?: (message: string, cause: unknown) => void;
}

/**
 * The state of an app instance.
 *
 * @param lastSeenAt ISO 8601 of its latest poll.
 * @param secretRotatedAt ISO 8601 of the project's latest rotation, or `null`.
 * @param now The time, in milliseconds.
 * @returns Its state.
 */
export function appState(lastSeenAt: string, secretRotatedAt: string | null, now: number): AppState {
  if (secretRotatedAt !== null && lastSeenAt < secretRotatedAt) return "rotated_out";
  return now - Date.parse(lastSeenAt) > APP_STALE_AFTER_MS ? "stale" : "following";
}

/**
 * Creates the connected apps service.
 *
 * @param storage The apps' repository, the projects' (for the latest rotation) and the keys' (for the key uses and
 *   the feed's latest seq).
 * @param options The clock and the logger.
 * @returns The service.
 */
export function createAppService(
  storage: {
    apps: AppRepository;
    projects: Pick<ProjectRepository, "findProject">;
    keys: Pick<KeyRepository, "mirrorKeyUses" | "projectRevocationSeq">;
  },
  options: AppServiceOptions = {},
): AppService {
  const now = options.now ?? PLATFORM.now;
  const log = options.logger ?? ((message, cause) => console.error(`[svc] ${message}`, cause));
  const written = new BoundedMap<string, { at: number; same: string }>({ maxEntries: REMEMBERED_APPS });
  return {
    async seen(projectId, headers, cursor) {
      const app = appIdentity(headers);
      if (app === null) return;
      const at = now();
      const key = `${projectId}\u0000${app.instanceId}`;
      const same = JSON.stringify([app.label, app.mode, app.sdkVersion, app.outboxDepth, cursor]);
      const last = written.get(key);
      if (last && last.same === same && at - last.at >= 0 && at - last.at < APP_SEEN_INTERVAL_MS) return;
      try {
        // A cursor past the feed's end (a made-up one, or a feed the app followed elsewhere) is recorded as its end.
        const latest = await storage.keys.projectRevocationSeq(projectId);
        await storage.apps.recordAppPoll(projectId, app, Math.min(cursor, latest), new Date(at).toISOString());
        written.set(key, { at, same });
      } catch (error) {
        log("Recording a connected app failed", error); // the feed still answers: following it matters more
      }
    },
    async list(projectId) {
      const [project, apps] = await Promise.all([
        storage.projects.findProject(projectId),
        storage.apps.listApps(projectId),
      ]);
      const at = now();
      return apps.map((app) => ({ ...app, state: appState(app.lastSeenAt, project?.secretRotatedAt ?? null, at) }));
    },
    purge: (before) => storage.apps.purgeApps(before),
    mirrorKeyUses(projectId, uses) {
      const latest = new Map<string, string>();
      const cap = new Date(now()).toISOString();
      for (const use of uses) {
        const at = use.lastUsedAt > cap ? cap : use.lastUsedAt;
        const known = latest.get(use.id);
        if (known === undefined || at > known) latest.set(use.id, at);
      }
      return storage.keys.mirrorKeyUses(projectId, [...latest].map(([id, lastUsedAt]) => ({ id, lastUsedAt })));
    },
  };
}
