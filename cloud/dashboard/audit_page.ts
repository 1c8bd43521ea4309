/**
 * The audit log: every mutation, by whom, from where, when; filtered by
 * action and time, paged. Per project, or for the whole cloud.
 *
 * @module
 */
import { html } from "hono/html";
import { notice, PAGE_SIZE, pageOffset, pager, time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { PageContext, ProjectContext } from "./page_context.ts";
import { htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/**
 * The audit log of a project, or of the whole cloud when `ctx` has no project.
 *
 * @param ctx The request (`action`, `since`, `page`).
 * @returns The page.
 */
export async function auditPage(ctx: PageContext | ProjectContext): Promise<Response> {
  const project = "project" in ctx ? ctx.project : undefined;
  const action = ctx.url.searchParams.get("action")?.trim() || undefined;
  const sinceText = ctx.url.searchParams.get("since")?.trim() || undefined;
  const since = sinceText === undefined || isNaN(Date.parse(sinceText)) ? undefined : new Date(sinceText).toISOString();
  const offset = pageOffset(ctx.url);
  const page = await ctx.services.audit.list({ projectId: project?.id, action, since, limit: PAGE_SIZE, offset });
  const rows = page.entries.map((e) =>
    html`<tr><td>${time(e.createdAt)}</td><td>${e.actor}</td><td><code>${e.action}</code></td>
<td>${e.target ?? ""}</td>${project ? "" : html`<td>${e.projectId ?? ""}</td>`}<td>${e.sourceAddress ?? ""}</td>
<td>${Object.keys(e.detail).length ? html`<code>${JSON.stringify(e.detail)}</code>` : ""}</td></tr>`
  );
  const action_ = project ? `/dashboard/projects/${project.id}/audit` : "/dashboard/audit";
  const body = html`
    <form class="filters" method="get" action="${action_}">
      <div><label for="action">Action</label><input id="action" name="action" value="${action ?? ""}"
        placeholder="key.revoke"></div>
      <div><label for="since">Since</label><input id="since" name="since" value="${sinceText ?? ""}"
        placeholder="2025-01-31T00:00:00Z"></div>
      <button type="submit">Filter</button>
    </form>
    ${sinceText !== undefined && since === undefined
      ? notice("error", "Since must be an ISO 8601 time; it was ignored.")
      : ""}
    <p><strong>${page.total}</strong> entries.</p>
    <table>
      <caption class="visually-hidden">Audit log, newest first</caption>
      <thead>
        <tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th>
    ${project ? "" : html`<th scope="col">Project</th>`}<th scope="col">From</th><th scope="col">Detail</th></tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
    ${pager(ctx.url, page.total, offset)}
  `;
  return htmlPage(layout(ctx, { title: "Audit log", section: "Audit log", project, body }), overHttps(ctx));
}
