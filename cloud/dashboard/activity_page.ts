/**
 * A project's activity (what agents did) with the filters and cursor paging of `GET /v1/sdk/activity` (key, user,
 * intent, outcome; newest first) and a search by key or user. Each outcome is written in words and coloured, never
 * told by colour alone. The filters are checked by the route's own query schema.
 *
 * @module
 */
import { html } from "hono/html";
import { ACTIVITY_OUTCOMES, type ActivityRecord } from "../../core/contract/mod.ts";
import { activityQuery } from "../activity/mod.ts";
import { keyLabelId } from "../keys/mod.ts";
import { dataTable, notice, PAGE_SIZE, time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { ProjectContext } from "./page_context.ts";
import { type Html, htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/** The outcomes in words, as the page and the key page show them. */
const OUTCOME_WORDS: Record<string, string> = {
  ok: "ok",
  refused: "refused",
  invalid: "invalid",
  failed: "failed",
  pending_approval: "pending approval",
};

/** The page's filters as the form sends them. */
type Filters = Record<"key" | "user" | "intent" | "outcome" | "q", string | undefined>;

/**
 * The activity page.
 *
 * @param ctx The request (`key`, `user`, `intent`, `outcome`, `q`, `cursor`).
 * @returns The page; 400 with the reasons when a filter is malformed.
 */
export async function activityPage(ctx: ProjectContext): Promise<Response> {
  const given = (name: string) => ctx.url.searchParams.get(name)?.trim() || undefined;
  const filters: Filters = {
    key: given("key"),
    user: given("user"),
    intent: given("intent"),
    outcome: given("outcome"),
    q: given("q"),
  };
  const cursor = given("cursor");
  const parsed = activityQuery.safeParse({
    keyId: filters.key,
    userId: filters.user,
    intent: filters.intent,
    outcome: filters.outcome,
    cursor,
    limit: String(PAGE_SIZE),
  });
  const who = filters.q?.slice(0, 200);
  const base = `/dashboard/projects/${ctx.project.id}`;
  const form = filterForm(base, filters);
  const frame = (body: Html) => layout(ctx, { title: "Activity", section: "Activity", project: ctx.project, body });
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return htmlPage(frame(html`${form}${notice("error", `Check the filters. ${reasons}`)}`), overHttps(ctx), 400);
  }
  const page = await ctx.services.activity.list(ctx.project.id, { ...parsed.data, who });
  const link = (next: string | null) => {
    const url = new URL(ctx.url);
    if (next === null) url.searchParams.delete("cursor");
    else url.searchParams.set("cursor", next);
    return `${url.pathname}${url.search}`;
  };
  const pages = cursor === undefined && page.nextCursor === null ? "" : html`<nav class="pager" aria-label="Pages">
  ${cursor === undefined ? "" : html`<a href="${link(null)}">Newest</a>`}
  ${page.nextCursor === null ? "" : html`<a href="${link(page.nextCursor)}" rel="next">Older</a>`}
</nav>`;
  // The keys' names in one read for the page (a key the cloud does not hold, a local-mode app's, shows its id only).
  const projectId = ctx.project.id;
  const labels = await ctx.services.keys.labels(page.activity.map((r) => ({ projectId, keyId: r.keyId })));
  const body = html`
    ${form}
    ${page.activity.length === 0
      ? html`<p>No activity matches.</p>`
      : activityTable("Activity list", "What agents did, newest first", page.activity, (r) => {
        const label = labels.get(keyLabelId(projectId, r.keyId));
        return html`${label ? html`<strong>${label.name}</strong><br>` : ""}<a href="${base}/activity?key=${
          encodeURIComponent(r.keyId)
        }" title="Activity of this key"><code>${r.keyId}</code></a>`;
      })}
    ${pages}
  `;
  return htmlPage(frame(body), overHttps(ctx));
}

/**
 * Records as a table: when, key, user, intent, via, outcome (in words and colour), status, time taken, client.
 *
 * @param label The table's name.
 * @param caption What it lists.
 * @param records The records, newest first.
 * @param keyCell The key's cell (a link to its activity), or `null` to leave the column out (the key's own page).
 * @returns The table.
 */
export function activityTable(
  label: string,
  caption: string,
  records: readonly ActivityRecord[],
  keyCell: ((r: ActivityRecord) => Html) | null,
): Html {
  const columns = ["When", ...(keyCell ? ["Key"] : []), "User", "Intent", "Via", "Outcome", "Status", "Took", "Client"];
  return dataTable({
    label,
    caption,
    columns,
    rows: records.map((r) =>
      html`
        <tr>
          <td>${time(r.at)}</td>
          ${keyCell ? html`<td>${keyCell(r)}</td>` : ""}
          <td>${r.userId}</td>
          <td><code>${r.intent}</code></td>
          <td>${r.via === "mcp" ? "MCP" : "HTTP"}</td>
          <td><span class="outcome outcome-${r.outcome}">${OUTCOME_WORDS[r.outcome] ?? r.outcome}</span>${codeOf(
            r,
          )}</td>
          <td>${r.status}</td>
          <td>${Math.round(r.ms)} ms</td>
          <td>${r.client ?? ""}</td>
        </tr>
      `
    ),
  });
}

/** A refusal's or failure's code after its outcome, or nothing. */
function codeOf(r: ActivityRecord): Html | string {
  return r.code === undefined ? "" : html`
    <code>${r.code}</code>
  `;
}

function filterForm(base: string, f: Filters): Html {
  const option = (value: string, label: string) =>
    html`
      <option value="${value}" ${(f.outcome ?? "") === value
        ? html`
          selected
        `
        : ""}>${label}</option>
    `;
  return html`<form class="filters" method="get" action="${base}/activity" role="search" aria-label="Activity">
  <div><label for="q">Key or user</label><input id="q" name="q" type="search" value="${f.q ?? ""}"></div>
  <div><label for="key">Key</label><input id="key" name="key" value="${f.key ?? ""}"></div>
  <div><label for="user">User</label><input id="user" name="user" value="${f.user ?? ""}"></div>
  <div><label for="intent">Intent</label><input id="intent" name="intent" value="${f.intent ?? ""}"></div>
  <div><label for="outcome">Outcome</label><select id="outcome" name="outcome">${option("", "Any")}${
    ACTIVITY_OUTCOMES.map((o) => option(o, OUTCOME_WORDS[o]))
  }</select></div>
  <button type="submit">Filter</button>
</form>`;
}
