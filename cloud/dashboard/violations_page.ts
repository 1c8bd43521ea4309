/**
 * A project's violations with the filters, order and paging of
 * `GET /v1/sdk/violations` (key, kind, severity, since; newest first), the
 * total, and the chart of the last 24 hours. Each row names its key (name and
 * user, one read for the page) next to its id. The filters are checked by the
 * route's own query schema.
 *
 * @module
 */
import { html } from "hono/html";
import { SEVERITIES } from "../../core/contract/mod.ts";
import { violationsQuery } from "../violations/mod.ts";
import { keyLabelId } from "../keys/mod.ts";
import { bucketKeys, violationChart } from "./chart.ts";
import { dataTable, notice, PAGE_SIZE, pageOffset, pager, time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { ProjectContext } from "./page_context.ts";
import { type Html, htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/**
 * The violations page.
 *
 * @param ctx The request (`key`, `kind`, `severity`, `since`, `page`).
 * @returns The page; 400 with the reasons when a filter is malformed.
 */
export async function violationsPage(ctx: ProjectContext): Promise<Response> {
  const given = (name: string) => ctx.url.searchParams.get(name)?.trim() || undefined;
  const offset = pageOffset(ctx.url);
  const filters = { keyId: given("key"), kind: given("kind"), severity: given("severity"), since: given("since") };
  const parsed = violationsQuery.safeParse({ ...filters, limit: String(PAGE_SIZE), offset: String(offset) });
  const base = `/dashboard/projects/${ctx.project.id}`;
  const form = filterForm(base, filters);
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    const body = html`${form}${notice("error", `Check the filters. ${reasons}`)}`;
    return htmlPage(
      layout(ctx, { title: "Violations", section: "Violations", project: ctx.project, body }),
      overHttps(ctx),
      400,
    );
  }
  const hours = bucketKeys(ctx.now, "hour", 24);
  const [page, byHour] = await Promise.all([
    ctx.services.violations.list(ctx.project.id, parsed.data),
    ctx.services.violations.chart(ctx.project.id, new Date(ctx.now - 23 * 3_600_000).toISOString(), "hour"),
  ]);
  // The keys' names and users in one read for the page.
  const labels = await ctx.services.keys.labels(
    page.violations.map((v) => ({ projectId: ctx.project.id, keyId: v.keyId })),
  );
  const rows = page.violations.map((v) => {
    const label = labels.get(keyLabelId(ctx.project.id, v.keyId));
    return html`
      <tr>
        <td>${time(v.createdAt)}</td>
        <td>${v.severity}</td>
        <td><code>${v.kind}</code></td>
        <td>${label ? html`<strong>${label.name}</strong> of <strong>${label.userId}</strong><br>` : ""}<a
          href="${base}/violations?key=${encodeURIComponent(v.keyId)}" title="Violations of this key"><code>${v
            .keyId}</code></a></td>
        <td>${v.userId ?? ""}</td>
        <td>${v.intent ?? ""}</td>
        <td>${v.message ?? ""}</td>
        <td>${Object.keys(v.metadata).length ? html`<code>${JSON.stringify(v.metadata)}</code>` : ""}</td>
      </tr>
    `;
  });
  const body = html`
    ${form}
    <p><strong>${page.total}</strong> violations match.</p>
    ${dataTable({
      label: "Violations list",
      caption: "Violations, newest first",
      columns: ["When", "Severity", "Kind", "Key", "User", "Intent", "Message", "Metadata"],
      rows: rows,
    })}
    ${pager(ctx.url, page.total, offset)}
    <h2>All violations, last 24 hours</h2>
    ${violationChart("chart-violations", "Violations of the last 24 hours, by hour and severity", hours, byHour)}
  `;
  return htmlPage(
    layout(ctx, { title: "Violations", section: "Violations", project: ctx.project, body }),
    overHttps(ctx),
  );
}

function filterForm(base: string, f: Record<"keyId" | "kind" | "severity" | "since", string | undefined>): Html {
  const option = (value: string, label: string) =>
    html`
      <option value="${value}" ${(f.severity ?? "") === value
        ? html`
          selected
        `
        : ""}>${label}</option>
    `;
  return html`<form class="filters" method="get" action="${base}/violations">
  <div><label for="key">Key</label><input id="key" name="key" value="${f.keyId ?? ""}"></div>
  <div><label for="kind">Kind</label><input id="kind" name="kind" value="${f.kind ?? ""}"></div>
  <div><label for="severity">Severity</label><select id="severity" name="severity">${option("", "Any")}${
    SEVERITIES.map((s) => option(s, s))
  }</select></div>
  <div><label for="since">Since</label><input id="since" name="since" value="${f.since ?? ""}"
    placeholder="2025-01-31T00:00:00Z"></div>
  <button type="submit">Filter</button>
</form>`;
}
