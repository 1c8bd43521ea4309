/**
 * A project's keys across users with search, filters by user and status, and selection; "Revoke"
 * leads to a confirmation whose button is "Revoke key". A revoke goes the way
 * the API's does: it wakes the revocation feed's polls at once, so every
 * connected app hears of it, and is recorded in the audit log.
 *
 * @module
 */
import { html } from "hono/html";
import { dataTable, notice, PAGE_SIZE, pageOffset, pager, time } from "./fragments.ts";
import { keyFilterFields, type KeyListFilters, readKeyFilters, revokedNotice } from "./key_list_filters.ts";
import { csrfField, layout } from "./layout.ts";
import { operatorActor, type ProjectContext } from "./page_context.ts";
import { type Html, htmlPage, redirect } from "./responses.ts";
import { messagePage } from "./fragments.ts";
import { revokeReach } from "./connected_apps.ts";
import { isExpired, type KeyRecord } from "../../core/contract/mod.ts";
import { overHttps } from "./visit.ts";
import { quantity } from "../violations/mod.ts";
import { keptQuery, listPath, RETURN_FIELD } from "./list_return.ts";

/**
 * The keys page: "Search keys" (a prefix of the name, start or user), the user and status filters, paging
 * with counts; each name links to the key's page; an admin selects keys ("Select NAME") for "Revoke selected",
 * and when the list is one user's, "Revoke all keys of USER".
 *
 * @param ctx The request (`q`, `user`, `status` and `page` query parameters).
 * @returns The page.
 */
export async function keysPage(ctx: ProjectContext): Promise<Response> {
  const filters = readKeyFilters(ctx.url.searchParams);
  const { q, user, status } = filters;
  const offset = pageOffset(ctx.url);
  const page = await ctx.services.keys.page(ctx.project.id, {
    userId: user,
    search: q,
    status,
    limit: PAGE_SIZE,
    offset,
  });
  const base = `/dashboard/projects/${ctx.project.id}`;
  const admin = ctx.session.operator.role === "admin";
  // The revoke returns to this list as filtered now.
  const back = keptQuery(ctx.url.search, ["revoked"]);
  const rows = page.keys.map((k) =>
    html`
      <tr>
        ${admin
          ? html`<td>${
            k.revokedAt === null
              ? html`<input type="checkbox" name="key" value="${k.id}" form="bulk-revoke" aria-label="Select ${k.name}">`
              : ""
          }</td>`
          : ""}
        <td><a href="${base}/keys/${encodeURIComponent(k.id)}">${k.name}</a></td>
        <td>${k.userId}</td>
        <td><code>${k.agentId}</code></td>
        <td>${k.scopes.length ? k.scopes.join(", ") : html`<span class="muted">none</span>`}</td>
        <td><code>${k.start}</code></td>
        <td>${time(k.createdAt)}</td>
        <td>${time(k.lastUsedAt)}</td>
        <td>${keyStatus(k, ctx.now)}</td>
        <td><a href="${base}/violations?key=${encodeURIComponent(k.id)}">Violations</a>${admin && k.revokedAt === null
          ? html`
            <form class="inline" method="get" action="${base}/keys/${encodeURIComponent(k.id)}/revoke">
              <input type="hidden" name="${RETURN_FIELD}" value="${back}">
              <button type="submit" class="danger" aria-label="Revoke ${k.name} (${k.start})">Revoke</button>
            </form>
          `
          : ""}</td>
      </tr>
    `
  );
  const option = (value: string, label: string) =>
    html`
      <option value="${value}" ${(status ?? "") === value
        ? html`
          selected
        `
        : ""}>${label}</option>
    `;
  const first = page.total === 0 ? 0 : offset + 1;
  const last = offset + page.keys.length;
  const body = html`
    ${revokedNotice(ctx.url.searchParams.get("revoked"))}
    <form class="filters" method="get" action="${base}/keys" role="search">
      <div><label for="q">Search keys</label><input id="q" name="q" type="search" value="${q ?? ""}"
        placeholder="name, svc_live_… or user"></div>
      <div><label for="user">User</label><input id="user" name="user" value="${user ?? ""}"></div>
      <div><label for="status">Status</label><select id="status" name="status">
        ${option("", "All")}${option("active", "Active")}${option("revoked", "Revoked")}</select></div>
      <button type="submit">Filter</button>
    </form>
    <p id="key-count">${quantity(page.total, "key")}${page.total > 0
      ? html`
        (showing ${first} to ${last})
      `
      : ""}</p>
    ${admin
      ? html`<div class="key-actions">
      <form id="bulk-revoke" class="inline" method="get" action="${base}/keys/revoke-selected">
        ${keyFilterFields(filters)}
        <button type="submit" class="danger">Revoke selected</button>
      </form>
      ${user === undefined ? "" : revokeAllButton(base, user, filters)}
    </div>`
      : ""}
    ${dataTable({
      label: "Keys",
      columns: [
        ...admin ? [html`<span class="visually-hidden">Select</span>`] : [],
        "Name",
        "User",
        "agentId",
        "Scopes",
        "Start",
        "Created",
        "Last used",
        "Status",
        "Actions",
      ],
      rows,
    })}
    ${pager(ctx.url, page.total, offset)}
  `;
  return htmlPage(layout(ctx, { title: "Keys", section: "Keys", project: ctx.project, body }), overHttps(ctx));
}

/**
 * "Revoke all keys of USER": a form leading to the confirmation that states the count.
 *
 * @param base The project's dashboard path.
 * @param userId The user.
 * @param filters The list to come back to.
 * @returns The form.
 */
export function revokeAllButton(base: string, userId: string, filters: KeyListFilters = {}): Html {
  return html`<form class="inline" method="get" action="${base}/keys/revoke-all">
  ${keyFilterFields({ ...filters, user: userId })}
  <button type="submit" class="danger">Revoke all keys of ${userId}</button>
</form>`;
}

/**
 * The confirmation before revoking a key.
 *
 * @param ctx The request.
 * @param params The key id.
 * @returns The page.
 */
export async function revokeKeyPage(ctx: ProjectContext, [keyId]: string[]): Promise<Response> {
  const key = await ctx.services.keys.find(ctx.project.id, keyId);
  if (!key) return messagePage(404, "Not found", "There is no such key in this project.", overHttps(ctx));
  const base = `/dashboard/projects/${ctx.project.id}`;
  const apps = key.revokedAt === null ? await ctx.services.apps.list(ctx.project.id) : [];
  const back = keptQuery(ctx.url.searchParams.get(RETURN_FIELD));
  const body = key.revokedAt !== null
    ? html`${notice("notice", "This key is already revoked.")}<p><a href="${base}/keys${
      back ? `?${back}` : ""
    }">Back to the keys</a></p>`
    : html`<p>Revoke the key <strong>${key.name}</strong> (<code>${key.start}</code>) of user <strong>${key.userId}</strong>,
inbox <code>${key.agentId}</code>? The agent is refused at the cloud on its next request, and at every
connected app through the revocation feed. This cannot be undone.</p>
<p id="revoke-reach">${revokeReach(apps)}</p>
<form method="post" action="${base}/keys/${encodeURIComponent(key.id)}/revoke">
  ${csrfField(ctx)}
  <input type="hidden" name="${RETURN_FIELD}" value="${back}">
  <button type="submit" class="danger">Revoke key</button>
  <a href="${base}/keys${back ? `?${back}` : ""}">Cancel</a>
</form>`;
  return htmlPage(layout(ctx, { title: "Revoke key", section: "Keys", project: ctx.project, body }), overHttps(ctx));
}

/**
 * Revokes a key.
 *
 * @param ctx The request.
 * @param params The key id.
 * @returns A redirect to the keys.
 */
export async function revokeKeyPost(ctx: ProjectContext, [keyId]: string[]): Promise<Response> {
  // One write: the revoke and its audit entry in one transaction; no key is the project's when it answers null.
  const revokedAt = await ctx.services.keys.revoke(ctx.project.id, keyId, "dashboard", operatorActor(ctx));
  if (revokedAt === null) return messagePage(404, "Not found", "There is no such key in this project.", overHttps(ctx));
  const back = keptQuery(ctx.form.get(RETURN_FIELD));
  return redirect(listPath(`/dashboard/projects/${ctx.project.id}/keys`, back, "revoked=1"), overHttps(ctx));
}

/**
 * A key's status in words: revoked (when), expired (when), active until a scheduled revocation (a reroll's grace), or
 * active.
 *
 * @param key The key.
 * @param now The time (ms since the epoch).
 * @returns The status.
 */
export function keyStatus(key: KeyRecord, now: number): Html {
  if (key.revokedAt !== null) return html`revoked ${time(key.revokedAt)}`;
  if (isExpired(key, now)) return html`expired ${time(key.expiresAt ?? null)}`;
  if (key.revokesAt) return html`active, revocation scheduled ${time(key.revokesAt)}`;
  return html`active`;
}
