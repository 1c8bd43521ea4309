/**
 * A project's inboxes: per agentId the items waiting, the oldest's age and the
 * most deliveries; one inbox's waiting events; an admin may discard a stuck
 * item (recorded in the audit log). Reading here counts no delivery.
 *
 * @module
 */
import { html } from "hono/html";
import { age, messagePage, notice, PAGE_SIZE, pageOffset, pager, time } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { audit, type ProjectContext } from "./page_context.ts";
import { htmlPage, redirect } from "./responses.ts";

/**
 * The inboxes of a project with waiting items.
 *
 * @param ctx The request.
 * @returns The page.
 */
export async function inboxesPage(ctx: ProjectContext): Promise<Response> {
  const backlog = await ctx.storage.inboxBacklog(ctx.project.id);
  const base = `/dashboard/projects/${ctx.project.id}/inbox`;
  const rows = backlog.map((b) =>
    html`
      <tr>
        <td><a href="${base}/${encodeURIComponent(b.agentId)}"><code>${b.agentId}</code></a></td>
        <td>${b.waiting}</td>
        <td>${age(ctx.now - Date.parse(b.oldestAt))}</td>
        <td>${b.maxDeliveries}</td>
      </tr>
    `
  );
  const body = backlog.length
    ? html`
      <table>
        <caption class="visually-hidden">Inboxes with waiting items</caption>
        <thead>
          <tr>
            <th scope="col">agentId</th>
            <th scope="col">Items waiting</th>
            <th scope="col">Oldest waiting</th>
            <th scope="col">Most deliveries</th>
          </tr>
        </thead>
        <tbody>${rows}</tbody>
      </table>
    `
    : html`<p>No item is waiting in any inbox.</p>`;
  return htmlPage(layout(ctx, { title: "Inbox", section: "Inbox", project: ctx.project, body }), ctx.secure);
}

/**
 * The waiting items of one inbox, oldest first.
 *
 * @param ctx The request.
 * @param params The agentId.
 * @returns The page.
 */
export async function inboxPage(ctx: ProjectContext, [agentId]: string[]): Promise<Response> {
  const offset = pageOffset(ctx.url);
  const page = await ctx.storage.peekInbox(ctx.project.id, agentId, PAGE_SIZE, offset);
  const action = `/dashboard/projects/${ctx.project.id}/inbox/${encodeURIComponent(agentId)}/discard`;
  const admin = ctx.session.operator.role === "admin";
  const items = page.items.map((i) =>
    html`
      <tr>
        <td>${i.inboxId}</td>
        <td><code>${i.eventId}</code></td>
        <td>${i.type}</td>
        <td>${time(i.createdAt)}</td>
        <td>${i.deliveries}</td>
        <td>
          <pre>${JSON.stringify(i.payload, null, 2)}</pre>
        </td>
        <td>${admin
          ? html`<form method="post" action="${action}">${csrfField(ctx)}
    <input type="hidden" name="inboxId" value="${i.inboxId}">
    <button type="submit" class="danger" aria-label="Discard event ${i.eventId}">Discard</button></form>`
          : ""}</td>
      </tr>
    `
  );
  const body = html`
    ${ctx.url.searchParams.get("discarded") ? notice("success", "The item was discarded.") : ""}
    <p><strong>${page.total}</strong> items waiting in <code>${agentId}</code>.</p>
    <table>
      <caption class="visually-hidden">Waiting items, oldest first</caption>
      <thead>
        <tr>
          <th scope="col">inboxId</th>
          <th scope="col">eventId</th>
          <th scope="col">Type</th>
          <th scope="col">Created</th>
          <th scope="col">Deliveries</th>
          <th scope="col">Payload</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>${items}</tbody>
    </table>
    ${pager(ctx.url, page.total, offset)}
    <p><a href="/dashboard/projects/${ctx.project.id}/inbox">All inboxes</a></p>
  `;
  return htmlPage(
    layout(ctx, { title: `Inbox ${agentId}`, section: "Inbox", project: ctx.project, body }),
    ctx.secure,
  );
}

/**
 * Discards one waiting item (it counts as acknowledged by the operator).
 *
 * @param ctx The request (`inboxId` field).
 * @param params The agentId.
 * @returns A redirect to the inbox.
 */
export async function discardPost(ctx: ProjectContext, [agentId]: string[]): Promise<Response> {
  const inboxId = Number(ctx.form.get("inboxId"));
  if (!Number.isSafeInteger(inboxId) || inboxId <= 0) {
    return messagePage(400, "Bad request", "inboxId must be a positive integer.", ctx.secure);
  }
  if (!await ctx.storage.discardInboxItem(ctx.project.id, inboxId, new Date(ctx.now).toISOString())) {
    return messagePage(404, "Not found", "That item is not waiting in this project.", ctx.secure);
  }
  await audit(ctx, ctx.project.id, "inbox.discard", String(inboxId), { agentId });
  return redirect(`/dashboard/projects/${ctx.project.id}/inbox/${encodeURIComponent(agentId)}?discarded=1`, ctx.secure);
}
