/**
 * Revoking many keys from the dashboard: "Revoke selected" and "Revoke all keys of USER" each lead to one
 * confirmation (listing the selected keys, or stating how many of the user's keys are active), whose form
 * posts with the page's CSRF token; the keys are revoked in one transaction, each with its feed row and
 * audit entry, and the operator lands back on the list they came from.
 *
 * @module
 */
import { html } from "hono/html";
import { BULK_REVOKE_LIMIT } from "../keys/mod.ts";
import type { KeyRecord } from "../../core/contract/mod.ts";
import { messagePage, notice } from "./fragments.ts";
import { keyFilterFields, keyFiltersQuery, type KeyListFilters, readKeyFilters } from "./key_list_filters.ts";
import { csrfField, layout } from "./layout.ts";
import { operatorActor, type ProjectContext } from "./page_context.ts";
import { type Html, htmlPage, redirect } from "./responses.ts";
import { revokeReach } from "./connected_apps.ts";
import { quantity } from "../violations/mod.ts";
import { overHttps } from "./visit.ts";

const CONSEQUENCES = "Their agents are refused at the cloud on their next request, and at every connected app " +
  "through the revocation feed. This cannot be undone.";

/**
 * The confirmation of "Revoke selected": the selected keys that are active, listed.
 *
 * @param ctx The request (`key` once per selected key, and the list's filters).
 * @returns The page.
 */
export async function revokeSelectedPage(ctx: ProjectContext): Promise<Response> {
  const filters = readKeyFilters(ctx.url.searchParams);
  const ids = selectedIds(ctx.url.searchParams);
  const back = `${base(ctx)}/keys${keyFiltersQuery(filters)}`;
  if (ids === null) return tooMany(ctx);
  const found = await Promise.all(ids.map((id) => ctx.services.keys.find(ctx.project.id, id)));
  const active = found.filter((k): k is KeyRecord => k !== null && k.revokedAt === null);
  if (active.length === 0) {
    const body = html`${
      notice("notice", "Select at least one active key, then Revoke selected.")
    }<p><a href="${back}">Back to the keys</a></p>`;
    return confirmation(ctx, "Revoke selected keys", body);
  }
  const apps = await ctx.services.apps.list(ctx.project.id);
  const rows = active.map((k) =>
    html`
      <tr>
        <td>${k.name}</td>
        <td><code>${k.start}</code></td>
        <td>${k.userId}</td>
        <td><code>${k.agentId}</code></td>
      </tr>
    `
  );
  const body = html`
    <p>Revoke ${active.length === 1 ? "this key" : `these ${quantity(active.length, "key")}`}? ${CONSEQUENCES}</p>
    <table>
      <caption>Keys to revoke</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Start</th>
          <th scope="col">User</th>
          <th scope="col">agentId</th>
        </tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
    ${active.length < ids.length
      ? html`<p>${ids.length - active.length} selected keys are already revoked or unknown.</p>`
      : ""}
    <p id="revoke-reach">${revokeReach(apps, active.length)}</p>
    <form method="post" action="${base(ctx)}/keys/revoke-selected">
      ${csrfField(ctx)}
      ${keyFilterFields(filters)}
      ${active.map((k) => html`<input type="hidden" name="key" value="${k.id}">`)}
      <button type="submit" class="danger">Revoke ${quantity(active.length, "key")}</button>
      <a href="${back}">Cancel</a>
    </form>
  `;
  return confirmation(ctx, "Revoke selected keys", body);
}

/**
 * Revokes the selected keys in one transaction.
 *
 * @param ctx The request (`key` once per key, and the list's filters).
 * @returns A redirect to the list, saying how many were revoked.
 */
export async function revokeSelectedPost(ctx: ProjectContext): Promise<Response> {
  const ids = selectedIds(ctx.form);
  if (ids === null) return tooMany(ctx);
  const revoked = await ctx.services.keys.revokeSelected(ctx.project.id, ids, "dashboard", operatorActor(ctx));
  return backToList(ctx, readKeyFilters(ctx.form), revoked.length);
}

/**
 * The confirmation of "Revoke all keys of USER", stating how many of the user's keys are active.
 *
 * @param ctx The request (`user`, and the list's filters).
 * @returns The page.
 */
export async function revokeAllPage(ctx: ProjectContext): Promise<Response> {
  const filters = readKeyFilters(ctx.url.searchParams);
  const back = `${base(ctx)}/keys${keyFiltersQuery(filters)}`;
  const user = filters.user;
  if (user === undefined) {
    return htmlPage(
      layout(ctx, {
        title: "Revoke all keys of a user",
        section: "Keys",
        project: ctx.project,
        body: html`${
          notice("error", "Filter the keys by one user first.")
        }<p><a href="${back}">Back to the keys</a></p>`,
      }),
      overHttps(ctx),
      400,
    );
  }
  const { total } = await ctx.services.keys.page(ctx.project.id, {
    userId: user,
    status: "active",
    limit: 1,
    offset: 0,
  });
  const title = `Revoke all keys of ${user}`;
  if (total === 0) {
    const body = html`${notice("notice", `${user} has no active key.`)}<p><a href="${back}">Back to the keys</a></p>`;
    return confirmation(ctx, title, body);
  }
  const apps = await ctx.services.apps.list(ctx.project.id);
  const body = html`
    <p
      id="revoke-all-count">Revoke all <strong>${total}</strong> active ${total === 1
        ? "key"
        : "keys"} of user <strong>${user}</strong>? ${CONSEQUENCES}</p>
    <p id="revoke-reach">${revokeReach(apps, total)}</p>
    <form method="post" action="${base(ctx)}/keys/revoke-all">
      ${csrfField(ctx)}
      ${keyFilterFields(filters)}
      <button type="submit" class="danger">Revoke all ${quantity(total, "key")}</button>
      <a href="${back}">Cancel</a>
    </form>
  `;
  return confirmation(ctx, title, body);
}

/**
 * Revokes every active key of the user in one transaction.
 *
 * @param ctx The request (`user`, and the list's filters).
 * @returns A redirect to the list, saying how many were revoked.
 */
export async function revokeAllPost(ctx: ProjectContext): Promise<Response> {
  const filters = readKeyFilters(ctx.form);
  if (filters.user === undefined) return messagePage(400, "Bad request", "No user given.", overHttps(ctx));
  const revoked = await ctx.services.keys.revokeAllOfUser(
    ctx.project.id,
    filters.user,
    "dashboard",
    operatorActor(ctx),
  );
  return backToList(ctx, filters, revoked.length);
}

/** "1 key", "3 keys". */
function base(ctx: ProjectContext): string {
  return `/dashboard/projects/${ctx.project.id}`;
}

/** The `key` fields, once each; `null` when there are more than one bulk revoke takes. */
function selectedIds(params: URLSearchParams): string[] | null {
  const ids = [
    ...new Set(params.getAll("key").map((id) => id.trim()).filter((id) => id.length > 0 && id.length <= 200)),
  ];
  return ids.length > BULK_REVOKE_LIMIT ? null : ids;
}

function tooMany(ctx: ProjectContext): Promise<Response> {
  return messagePage(400, "Too many keys", `Select at most ${BULK_REVOKE_LIMIT} keys at once.`, overHttps(ctx));
}

function confirmation(ctx: ProjectContext, title: string, body: Html): Promise<Response> {
  return htmlPage(layout(ctx, { title, section: "Keys", project: ctx.project, body }), overHttps(ctx));
}

function backToList(ctx: ProjectContext, filters: KeyListFilters, revoked: number): Response {
  // The list the operator came from: a page past the end after the revoke just shows fewer rows.
  return redirect(`${base(ctx)}/keys${keyFiltersQuery(filters, { revoked: String(revoked) })}`, overHttps(ctx));
}
