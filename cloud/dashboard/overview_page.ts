/**
 * A project's overview: keys active and revoked, the manifest, violations of
 * the last 24 hours by hour and of the last 30 days by day, the inbox
 * backlog and the connected apps.
 *
 * @module
 */
import { html } from "hono/html";
import { bucketKeys, violationChart } from "./chart.ts";
import { connectedAppsSection } from "./connected_apps.ts";
import { age, time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { ProjectContext } from "./page_context.ts";
import { htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

const DAY_MS = 86_400_000;

/**
 * The overview page.
 *
 * @param ctx The request.
 * @returns The page.
 */
export async function overviewPage(ctx: ProjectContext): Promise<Response> {
  const id = ctx.project.id;
  const hours = bucketKeys(ctx.now, "hour", 24);
  const days = bucketKeys(ctx.now, "day", 30);
  const [keys, manifest, byHour, byDay, backlog, apps] = await Promise.all([
    ctx.services.keys.count(id),
    ctx.services.projects.manifest(id),
    ctx.services.violations.chart(id, new Date(ctx.now - DAY_MS + 3_600_000).toISOString(), "hour"),
    ctx.services.violations.chart(id, new Date(ctx.now - 29 * DAY_MS).toISOString(), "day"),
    ctx.services.inbox.backlog(id),
    ctx.services.apps.list(id),
  ]);
  const waiting = backlog.reduce((n, b) => n + b.waiting, 0);
  const oldest = backlog.reduce<string | null>((o, b) => o === null || b.oldestAt < o ? b.oldestAt : o, null);
  const base = `/dashboard/projects/${id}`;
  const body = html`<ul class="stats">
  <li><a href="${base}/keys?status=active"><strong>${keys.active}</strong> keys active</a></li>
  <li><a href="${base}/keys?status=revoked"><strong>${keys.revoked}</strong> keys revoked</a></li>
  <li><a href="${base}/intents"><strong>${manifest.intents.length}</strong> intents</a>
    <span class="muted">manifest uploaded ${time(manifest.updatedAt)}</span></li>
  <li><a href="${base}/inbox"><strong>${waiting}</strong> inbox items waiting</a>
    <span class="muted">${
    oldest === null ? "none waiting" : `oldest waiting ${age(ctx.now - Date.parse(oldest))}`
  }</span></li>
</ul>
${connectedAppsSection(apps, ctx.now)}
<h2>Violations, last 24 hours</h2>
${violationChart("chart-24h", "Violations of the last 24 hours, by hour and severity", hours, byHour)}
<h2>Violations, last 30 days</h2>
${violationChart("chart-30d", "Violations of the last 30 days, by day and severity", days, byDay)}
<p><a href="${base}/violations">See the violations</a></p>`;
  return htmlPage(layout(ctx, { title: "Overview", section: "Overview", project: ctx.project, body }), overHttps(ctx));
}
