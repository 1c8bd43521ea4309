/**
 * The connected apps as the dashboard shows them: the Overview's table, the
 * revoke confirmation's count of apps that follow now, and the rotate
 * confirmation's list of the apps a rotation cuts off. Each shows an app's
 * restarts as one row ({@linkcode foldRestarts}); the Overview puts the apps not
 * seen for {@linkcode DEPARTED_AFTER_MS} behind "Show departed apps".
 *
 * @module
 */
import { html } from "hono/html";
import type { ConnectedApp } from "../apps/mod.ts";
import { quantity } from "../violations/mod.ts";
import { age, dataTable, time } from "./fragments.ts";
import type { Html } from "./responses.ts";

const STATE_WORDS: Record<ConnectedApp["state"], string> = {
  following: "following",
  stale: "stale (not seen for over a minute)",
  rotated_out: "rotated out (holds an old secret)",
};

/** An app not seen for longer than this is departed: listed behind "Show departed apps". */
export const DEPARTED_AFTER_MS = 10 * 60 * 1000;

/** An app as listed: its latest instance, and how many earlier instances it replaced. */
export interface FoldedApp extends ConnectedApp {
  /** The earlier instances of the same app (same label and mode) that this one followed, restart after restart. */
  restarts: number;
}

/**
 * Folds an app's restarts into one row: an instance whose label (not empty) and mode are those of an earlier
 * instance last seen before it was first seen (a restart, or a rotation and a restart) replaces it. Instances seen
 * at the same time (replicas) stay apart, and so do instances without a label.
 *
 * @param apps The project's instances, most recently seen first.
 * @returns One row per app, each its latest instance, most recently seen first.
 */
export function foldRestarts(apps: readonly ConnectedApp[]): FoldedApp[] {
  const chains = new Map<string, FoldedApp[]>();
  const folded: FoldedApp[] = [];
  const oldestFirst = [...apps].sort((a, b) =>
    a.firstSeenAt < b.firstSeenAt ? -1 : a.firstSeenAt > b.firstSeenAt ? 1 : 0
  );
  for (const app of oldestFirst) {
    if (app.label === "") {
      folded.push({ ...app, restarts: 0 });
      continue;
    }
    const group = `${app.mode}\u0000${app.label}`;
    const heads = chains.get(group) ?? [];
    const replaced = heads
      .filter((head) => head.lastSeenAt < app.firstSeenAt)
      .sort((a, b) => a.lastSeenAt < b.lastSeenAt ? 1 : -1)[0];
    const row = { ...app, restarts: replaced === undefined ? 0 : replaced.restarts + 1 };
    chains.set(group, [...heads.filter((head) => head !== replaced), row]);
  }
  for (const heads of chains.values()) folded.push(...heads);
  return folded.sort((a, b) =>
    a.lastSeenAt < b.lastSeenAt ? 1 : a.lastSeenAt > b.lastSeenAt ? -1 : a.instanceId < b.instanceId ? -1 : 1
  );
}

/** An app's label, or its instance id when it gave none. */
function appName(app: ConnectedApp): Html {
  return app.label === "" ? html`<code>${app.instanceId}</code>` : html`${app.label}`;
}

/**
 * The Overview's "Connected apps" section.
 *
 * @param apps The project's apps, most recently seen first.
 * @param now The time, in milliseconds.
 * @returns The heading and its table (or a sentence when none follows).
 */
export function connectedAppsSection(apps: readonly ConnectedApp[], now: number): Html {
  const folded = foldRestarts(apps);
  const present = folded.filter((app) => now - Date.parse(app.lastSeenAt) <= DEPARTED_AFTER_MS);
  const departed = folded.filter((app) => now - Date.parse(app.lastSeenAt) > DEPARTED_AFTER_MS);
  const table = (rows: FoldedApp[], label: string, caption: string): Html =>
    dataTable({
      label,
      caption,
      columns: ["Label", "Mode", "SDK version", "State", "Last seen", "Outbox"],
      rows: rows.map((app) => appRow(app, now)),
    });
  return html`<h2>Connected apps</h2>
${
    folded.length === 0
      ? html`<p>No app has followed the revocation feed in the last 7 days.</p>`
      : present.length === 0
      ? html`<p>No app has followed the revocation feed in the last 10 minutes.</p>`
      : table(present, "Connected apps", "Apps following the revocation feed, most recently seen first")
  }
${
    departed.length === 0 ? "" : html`<details class="departed">
  <summary>Show departed apps (${departed.length})</summary>
  ${table(departed, "Departed apps", "Apps not seen for over 10 minutes, most recently seen first")}
</details>`
  }`;
}

function appRow(app: FoldedApp, now: number): Html {
  return html`
    <tr>
      <td>${appName(app)}${app.restarts === 0 ? "" : html`
        <span class="muted">(${quantity(app.restarts, "restart")})</span>
      `}</td>
      <td>${app.mode ?? html`<span class="muted">unknown</span>`}</td>
      <td>${app.sdkVersion ?? html`<span class="muted">unknown</span>`}</td>
      <td>${STATE_WORDS[app.state]}</td>
      <td>${time(app.lastSeenAt)} <span class="muted">(${age(now - Date.parse(app.lastSeenAt))} ago)</span></td>
      <td>${app.outboxDepth === null
        ? html`<span class="muted">unknown</span>`
        : quantity(app.outboxDepth, "item")}</td>
    </tr>
  `;
}

/**
 * What a revoke reaches now, for its confirmation.
 *
 * @param apps The project's apps.
 * @param keys How many keys the revoke revokes (one by default).
 * @returns One sentence.
 */
export function revokeReach(apps: readonly ConnectedApp[], keys = 1): string {
  const following = foldRestarts(apps).filter((app) => app.state === "following").length;
  const which = keys === 1 ? "this key" : `these ${quantity(keys, "key")}`;
  if (following === 0) {
    return `No app follows the revocation feed right now: an app that connects later refuses ${which} as it catches up.`;
  }
  return `${quantity(following, "connected app")} will refuse ${which} within a second.`;
}

/**
 * The apps a rotation cuts off (those that still hold the current secret), for its confirmation.
 *
 * @param apps The project's apps.
 * @returns A sentence and the list.
 */
export function rotationCutOff(apps: readonly ConnectedApp[]): Html {
  const cut = foldRestarts(apps).filter((app) => app.state !== "rotated_out");
  if (cut.length === 0) return html`<p>No connected app uses the current secret.</p>`;
  return html`<p>${quantity(cut.length, "connected app")} ${
    cut.length === 1 ? "uses" : "use"
  } the current secret and will
stop hearing revocations until given the new one:</p>
<ul class="cut-off">${
    cut.map((app) =>
      html`<li>${appName(app)} (${app.mode ?? "unknown mode"}, ${STATE_WORDS[app.state]}, last seen ${
        time(app.lastSeenAt)
      })</li>`
    )
  }</ul>`;
}
