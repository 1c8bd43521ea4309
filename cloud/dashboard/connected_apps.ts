/**
 * The connected apps as the dashboard shows them: the Overview's table, the
 * revoke confirmation's count of apps that follow now, and the rotate
 * confirmation's list of the apps a rotation cuts off.
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
  const rows = apps.map((app) =>
    html`
      <tr>
        <td>${appName(app)}</td>
        <td>${app.mode ?? html`<span class="muted">unknown</span>`}</td>
        <td>${app.sdkVersion ?? html`<span class="muted">unknown</span>`}</td>
        <td>${STATE_WORDS[app.state]}</td>
        <td>${time(app.lastSeenAt)} <span class="muted">(${age(now - Date.parse(app.lastSeenAt))} ago)</span></td>
      </tr>
    `
  );
  return html`<h2>Connected apps</h2>
${
    apps.length === 0 ? html`<p>No app has followed the revocation feed in the last 7 days.</p>` : html`
      ${dataTable({
        label: "Connected apps",
        caption: "Apps following the revocation feed, most recently seen first",
        columns: ["Label", "Mode", "SDK version", "State", "Last seen"],
        rows: rows,
      })}
    `
  }`;
}

/**
 * What a revoke reaches now, for its confirmation.
 *
 * @param apps The project's apps.
 * @param keys How many keys the revoke revokes (one by default).
 * @returns One sentence.
 */
export function revokeReach(apps: readonly ConnectedApp[], keys = 1): string {
  const following = apps.filter((app) => app.state === "following").length;
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
  const cut = apps.filter((app) => app.state !== "rotated_out");
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
