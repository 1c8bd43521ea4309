/**
 * The audit log: every mutation, by whom, from where, when; filtered by
 * action (chosen from the known ones), key and time, paged. Per project, or
 * for the whole cloud. A key's entries name it (name and user) next to its id,
 * looked up in one read for the page.
 *
 * @module
 */
import { html } from "hono/html";
import { AUDIT_ACTIONS, type AuditEntry, targetsKey } from "../audit/mod.ts";
import { type KeyLabel, keyLabelId } from "../keys/mod.ts";
import { dataTable, notice, PAGE_SIZE, pageOffset, pager, time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { PageContext, ProjectContext } from "./page_context.ts";
import { type Html, htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/**
 * The audit log of a project, or of the whole cloud when `ctx` has no project.
 *
 * @param ctx The request (`action`, `key`, `since`, `page`).
 * @returns The page.
 */
export async function auditPage(ctx: PageContext | ProjectContext): Promise<Response> {
  const project = "project" in ctx ? ctx.project : undefined;
  const given = (name: string) => ctx.url.searchParams.get(name)?.trim().slice(0, 200) || undefined;
  const action = given("action");
  const keyId = given("key");
  const sinceText = given("since");
  const since = sinceText === undefined || isNaN(Date.parse(sinceText)) ? undefined : new Date(sinceText).toISOString();
  const offset = pageOffset(ctx.url);
  const query = { projectId: project?.id, action, keyId, since, limit: PAGE_SIZE, offset };
  const page = await ctx.services.audit.list(query);
  const labels = await ctx.services.keys.labels(
    page.entries.filter(namesKey).map((e) => ({ projectId: e.projectId!, keyId: e.target! })),
  );
  const path = project ? `/dashboard/projects/${project.id}/audit` : "/dashboard/audit";
  const rows = page.entries.map((e) =>
    html`<tr><td>${time(e.createdAt)}</td><td><code>${e.action}</code></td><td>${target(e, path, labels)}</td>
<td>${e.actor}</td>${project ? "" : html`<td>${e.projectId ?? ""}</td>`}<td>${e.sourceAddress ?? ""}</td>
<td>${Object.keys(e.detail).length ? html`<code>${JSON.stringify(e.detail)}</code>` : ""}</td></tr>`
  );
  const body = html`
    ${filterForm(path, { action, keyId, sinceText })}
    ${sinceText !== undefined && since === undefined
      ? notice("error", "Since must be an ISO 8601 time; it was ignored.")
      : ""}
    <p><strong>${page.total}</strong> entries${keyId === undefined ? "" : html`
      about the key <code>${keyId}</code>
    `}.</p>
    ${dataTable({
      label: "Audit log entries",
      caption: "Audit log, newest first",
      columns: ["When", "Action", "Target", "Who", ...project ? [] : ["Project"], "From", "Detail"],
      rows,
    })}
    ${pager(ctx.url, page.total, offset)}
  `;
  return htmlPage(layout(ctx, { title: "Audit log", section: "Audit log", project, body }), overHttps(ctx));
}

/** Whether an entry's target is a key of a project, to be named. */
function namesKey(e: AuditEntry): boolean {
  return e.projectId !== null && e.target !== null && targetsKey(e.action);
}

/** The target: a key by its name and user, its id linking to the log of that key; anything else as it is. */
function target(e: AuditEntry, path: string, labels: Map<string, KeyLabel>): Html | string {
  if (!namesKey(e)) return e.target ?? "";
  const label = labels.get(keyLabelId(e.projectId!, e.target!));
  const filter = new URLSearchParams({ key: e.target! });
  return html`
    ${label ? html`<strong>${label.name}</strong> of <strong>${label.userId}</strong><br>` : ""}<a
      href="${path}?${filter}" title="Entries about this key"><code>${e.target}</code></a>
  `;
}

/** The filters: the action from a list of the known ones, the key's id, and a time. */
function filterForm(path: string, f: { action?: string; keyId?: string; sinceText?: string }): Html {
  const known = f.action === undefined || AUDIT_ACTIONS.includes(f.action)
    ? AUDIT_ACTIONS
    : [f.action, ...AUDIT_ACTIONS];
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${(f.action ?? "") === value ? html`selected` : ""}>${label}</option>`;
  return html`<form class="filters" method="get" action="${path}">
  <div><label for="action">Action</label><select id="action" name="action">${option("", "Any")}${
    known.map((a) => option(a, a))
  }</select></div>
  <div><label for="key">Key</label><input id="key" name="key" value="${f.keyId ?? ""}" size="30"
    placeholder="the key's id"></div>
  <div><label for="since">Since</label><input id="since" name="since" value="${f.sinceText ?? ""}"
    placeholder="2025-01-31T00:00:00Z"></div>
  <button type="submit">Filter</button>
</form>`;
}
