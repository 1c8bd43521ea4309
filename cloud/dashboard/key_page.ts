/**
 * One key's page: what it is (name, user, agentId, scopes, start), its life (created, last used, expiry, a
 * scheduled revocation, status), its runs and refusals per hour over the last 7 days, its recent activity, its
 * recent violations and its audit entries, with "Revoke" and "Revoke all
 * keys of USER". A key of another project, or none, is a 404 page.
 *
 * @module
 */
import { html } from "hono/html";
import type { KeyRecord } from "../../core/contract/mod.ts";
import { dataTable, messagePage, time } from "./fragments.ts";
import { activityTable } from "./activity_page.ts";
import { activityChart, bucketKeys } from "./chart.ts";
import { CHART_HOURS } from "../activity/mod.ts";
import { keyStatus, revokeAllButton } from "./keys_page.ts";
import { layout } from "./layout.ts";
import type { ProjectContext } from "./page_context.ts";
import { type Html, htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/** How many of the key's latest violations and audit entries the page shows. */
const RECENT = 10;

/**
 * The key's page.
 *
 * @param ctx The request.
 * @param params The key id.
 * @returns The page, or a 404 page.
 */
export async function keyPage(ctx: ProjectContext, [keyId]: string[]): Promise<Response> {
  const key = await ctx.services.keys.find(ctx.project.id, keyId);
  if (!key) return messagePage(404, "Not found", "There is no such key in this project.", overHttps(ctx));
  const base = `/dashboard/projects/${ctx.project.id}`;
  const [activity, hours, violations, audit] = await Promise.all([
    ctx.services.activity.list(ctx.project.id, { keyId: key.id, limit: RECENT }),
    ctx.services.activity.keyHours(ctx.project.id, key.id),
    ctx.services.violations.list(ctx.project.id, { keyId: key.id, limit: RECENT, offset: 0 }),
    ctx.services.audit.list({ projectId: ctx.project.id, keyId: key.id, limit: RECENT, offset: 0 }),
  ]);
  const admin = ctx.session.operator.role === "admin";
  const row = (name: string, value: Html | string) =>
    html`
      <tr>
        <th scope="row">${name}</th>
        <td>${value}</td>
      </tr>
    `;
  const body = html`
    <table class="key-details">
      <caption class="visually-hidden">The key</caption>
      ${row("Name", key.name)}
      ${row("User", html`<a href="${base}/keys?user=${encodeURIComponent(key.userId)}">${key.userId}</a>`)}
      ${row("agentId", html`<code>${key.agentId}</code>`)}
      ${row("Scopes", key.scopes.length ? key.scopes.join(", ") : html`<span class="muted">none</span>`)}
      ${row("Start", html`<code>${key.start}</code>`)}
      ${row("Created", time(key.createdAt))}
      ${row("Last used", time(key.lastUsedAt))}
      ${lifecycleRows(key, row)}
      ${row("Status", keyStatus(key, ctx.now))}
    </table>
    ${admin
      ? html`<div class="key-actions">${
        key.revokedAt === null
          ? html`
            <form class="inline" method="get" action="${base}/keys/${encodeURIComponent(key.id)}/revoke">
              <button type="submit" class="danger" aria-label="Revoke ${key.name} (${key.start})">Revoke</button>
            </form>
          `
          : ""
      }${revokeAllButton(base, key.userId)}</div>`
      : ""}
    <h2>Recent activity</h2>
    ${activity.activity.length === 0 ? html`<p>No activity recorded for this key.</p>` : html`
      <p><a href="${base}/activity?key=${encodeURIComponent(key.id)}">All activity of this key</a></p>
      ${activityTable("Recent activity of this key", "The key's latest runs, newest first", activity.activity, null)}
    `}
    ${activityChart(
      "chart-key-activity",
      "Runs and refusals of this key, last 7 days, by hour",
      bucketKeys(ctx.now, "hour", CHART_HOURS),
      hours,
    )}
    <h2>Recent violations</h2>
    ${violations.total === 0 ? html`<p>No violations recorded for this key.</p>` : html`
      <p>${count(violations.total, "violation")}. <a href="${base}/violations?key=${encodeURIComponent(
        key.id,
      )}">All violations of this key</a></p>
      ${dataTable({
        label: "Recent violations of this key",
        caption: "The key's latest violations, newest first",
        columns: ["When", "Severity", "Kind", "Intent", "Message"],
        rows: violations.violations.map((v) =>
          html`
            <tr>
              <td>${time(v.createdAt)}</td>
              <td>${v.severity}</td>
              <td><code>${v.kind}</code></td>
              <td>${v.intent ?? ""}</td>
              <td>${v.message ?? ""}</td>
            </tr>
          `
        ),
      })}
    `}
    <h2>Audit entries</h2>
    ${audit.total === 0 ? html`<p>No audit entries about this key.</p>` : html`
      <p>${count(audit.total, "entry", "entries")}.</p>
      ${dataTable({
        label: "Audit entries of this key",
        caption: "The key's audit entries, newest first",
        columns: ["When", "Who", "Action", "From", "Detail"],
        rows: audit.entries.map((e) =>
          html`
            <tr>
              <td>${time(e.createdAt)}</td>
              <td>${e.actor}</td>
              <td><code>${e.action}</code></td>
              <td>${e.sourceAddress ?? ""}</td>
              <td>${Object.keys(e.detail).length ? html`<code>${JSON.stringify(e.detail)}</code>` : ""}</td>
            </tr>
          `
        ),
      })}
    `}
    <p><a href="${base}/keys">Back to the keys</a></p>
  `;
  return htmlPage(
    layout(ctx, { title: `Key ${key.name}`, section: "Keys", project: ctx.project, body }),
    overHttps(ctx),
  );
}

/** "Expires" (never when the key has no expiry) and, when one is set, "Scheduled revocation". */
function lifecycleRows(key: KeyRecord, row: (name: string, value: Html | string) => Html): Html {
  return html`${row("Expires", time(key.expiresAt ?? null))}${
    key.revokesAt ? row("Scheduled revocation", time(key.revokesAt)) : ""
  }`;
}

/** "1 violation", "3 violations": a count with its noun. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
