/**
 * A project's inboxes: per agentId the items waiting, the oldest's age and the
 * most deliveries; one inbox's items, waiting, acknowledged (until purged) or
 * all, and how many of its long polls wait on this server; an admin may discard
 * a stuck item (recorded in the audit log). Its dead letters (items handed out the project's maxDeliveries times
 * without an ack), which an admin may redrive, and the replay of acknowledged items of a time window (each audited).
 * Reading here counts no delivery.
 *
 * @module
 */
import { html } from "hono/html";
import { age, dataTable, messagePage, notice, PAGE_SIZE, pageOffset, pager, time } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { auditEntry, type ProjectContext } from "./page_context.ts";
import { type Html, htmlPage, redirect } from "./responses.ts";
import type { InboxItemStatus } from "../inbox/mod.ts";
import { overHttps } from "./visit.ts";
import { timestampInput } from "../../core/contract/mod.ts";

/** What one inbox's page shows: `?status=`, waiting items by default. */
const SHOWN = {
  waiting: { label: "Waiting", caption: "Waiting items, oldest first", count: "items waiting in" },
  acknowledged: { label: "Acknowledged", caption: "Acknowledged items, newest first", count: "acknowledged items in" },
  all: { label: "All", caption: "All items, newest first", count: "items in" },
} as const;

/**
 * The inboxes of a project with waiting items, and a way to open any inbox.
 *
 * @param ctx The request (`agentId` opens that inbox).
 * @returns The page, or a redirect to the inbox asked for.
 */
export async function inboxesPage(ctx: ProjectContext): Promise<Response> {
  const base = `/dashboard/projects/${ctx.project.id}/inbox`;
  const wanted = ctx.url.searchParams.get("agentId")?.trim();
  if (wanted) return redirect(`${base}/${encodeURIComponent(wanted)}?status=all`, overHttps(ctx));
  const backlog = await ctx.services.inbox.backlog(ctx.project.id);
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
      ${dataTable({
        label: "Inboxes with waiting items",
        columns: ["agentId", "Items waiting", "Oldest waiting", "Most deliveries"],
        rows: rows,
      })}
    `
    : html`<p>No item is waiting in any inbox.</p>`;
  const open = html`<form class="filters" method="get" action="${base}">
  <div><label for="agent-id">agentId</label><input id="agent-id" name="agentId" required></div>
  <button type="submit">Open inbox</button>
</form>`;
  return htmlPage(
    layout(ctx, { title: "Inbox", section: "Inbox", project: ctx.project, body: html`${open}${body}` }),
    overHttps(ctx),
  );
}

/**
 * One inbox's items: waiting (oldest first), acknowledged or all (newest first).
 *
 * @param ctx The request (`status`: `waiting`, `acknowledged` or `all`; `page`).
 * @param params The agentId.
 * @returns The page.
 */
export async function inboxPage(ctx: ProjectContext, [agentId]: string[]): Promise<Response> {
  const given = ctx.url.searchParams.get("status");
  const shown = given === "acknowledged" || given === "all" ? given : "waiting";
  const offset = pageOffset(ctx.url);
  const status: InboxItemStatus | undefined = shown === "all" ? undefined : shown;
  const page = await ctx.services.inbox.peek(ctx.project.id, agentId, { status, limit: PAGE_SIZE, offset });
  const base = `/dashboard/projects/${ctx.project.id}/inbox`;
  const path = `${base}/${encodeURIComponent(agentId)}`;
  const admin = ctx.session.operator.role === "admin";
  const items = page.items.map((i) =>
    html`
      <tr>
        <td>${i.inboxId}</td>
        <td><code>${i.eventId}</code></td>
        <td>${i.type}</td>
        <td>${time(i.createdAt)}</td>
        <td>${i.acknowledgedAt === null ? html`<span class="muted">waiting</span>` : time(i.acknowledgedAt)}</td>
        <td>${i.deliveries}</td>
        <td>${payloadCell(i.payload)}</td>
        <td>${admin && i.acknowledgedAt === null
          ? html`<form method="post" action="${path}/discard">${csrfField(ctx)}
    <input type="hidden" name="inboxId" value="${i.inboxId}">
    <button type="submit" class="danger" aria-label="Discard event ${i.eventId}">Discard</button></form>`
          : ""}</td>
      </tr>
    `
  );
  const body = html`
    ${ctx.url.searchParams.get("discarded") ? notice("success", "The item was discarded.") : ""}
    ${doneNotice(ctx.url)}
    ${statusForm(path, shown)}
    <p><strong>${page.total}</strong> ${SHOWN[shown].count} <code>${agentId}</code>.${shown === "waiting" ? "" : html`
      Acknowledged items are kept for the project's retention (see Settings), then purged.
    `}</p>
    <p>${listening(ctx.waiters.waitingIn(ctx.project.id, agentId))}</p>
    ${dataTable({
      label: SHOWN[shown].caption,
      columns: ["inboxId", "eventId", "Type", "Created", "Acknowledged", "Deliveries", "Payload", "Actions"],
      rows: items,
    })}
    ${pager(ctx.url, page.total, offset)}
    ${await deadLetterSection(ctx, agentId, path, admin)}
    <p><a href="${base}">All inboxes</a></p>
  `;
  return htmlPage(
    layout(ctx, { title: `Inbox ${agentId}`, section: "Inbox", project: ctx.project, body }),
    overHttps(ctx),
  );
}

/** A payload longer than this, as compact JSON, is shown as its start and opens to the whole of it. */
const PAYLOAD_PREVIEW = 60;

/**
 * An item's payload: short, on one line; longer, its first characters on one line, opening to the whole payload
 * pretty-printed (a row stays one line tall on a phone, where the table scrolls sideways).
 */
function payloadCell(payload: unknown): Html {
  const compact = JSON.stringify(payload);
  if (compact.length <= PAYLOAD_PREVIEW) return html`<code>${compact}</code>`;
  return html`
    <details class="payload">
      <summary><code>${compact.slice(0, PAYLOAD_PREVIEW)}…</code></summary>
      <pre>${JSON.stringify(payload, null, 2)}</pre>
    </details>
  `;
}

/** Whether the inbox's agent is long-polling this server now (another server of the cloud counts its own). */
function listening(polls: number): Html {
  return html`<strong>${polls}</strong> long poll${polls === 1 ? "" : "s"} of this inbox waiting on this server${
    polls === 0 ? "" : " (its agent is listening)"
  }.`;
}

function statusForm(path: string, shown: keyof typeof SHOWN): Html {
  const options = (Object.keys(SHOWN) as (keyof typeof SHOWN)[]).map((value) =>
    html`
      <option value="${value}" ${value === shown
        ? html`
          selected
        `
        : ""}>${SHOWN[value].label}</option>
    `
  );
  return html`<form class="filters" method="get" action="${path}">
  <div><label for="status">Status</label><select id="status" name="status">${options}</select></div>
  <button type="submit">Filter</button>
</form>`;
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
    return messagePage(400, "Bad request", "inboxId must be a positive integer.", overHttps(ctx));
  }
  // Only an item of this URL's agent: another agent's item is not found here (and never audited under this one).
  const entry = auditEntry(ctx, ctx.project.id, "inbox.discard", String(inboxId), { agentId });
  if (
    !await ctx.services.inbox.discard(ctx.project.id, agentId, inboxId, new Date(ctx.now).toISOString(), entry)
  ) {
    return messagePage(404, "Not found", "That item is not waiting in this project.", overHttps(ctx));
  }
  return redirect(
    `/dashboard/projects/${ctx.project.id}/inbox/${encodeURIComponent(agentId)}?discarded=1`,
    overHttps(ctx),
  );
}

/** What a redrive or a replay did, from its redirect's query. */
function doneNotice(url: URL): Html | string {
  const redriven = url.searchParams.get("redriven");
  if (redriven !== null) return notice("success", `${Number(redriven)} dead letters were put back in the inbox.`);
  const replayed = url.searchParams.get("replayed");
  if (replayed !== null) return notice("success", `${Number(replayed)} acknowledged items were queued again.`);
  return "";
}

/** The inbox's dead letters, with an admin's Redrive (each, or all) and Replay… forms. */
async function deadLetterSection(ctx: ProjectContext, agentId: string, path: string, admin: boolean): Promise<Html> {
  const dead = await ctx.services.inbox.deadLetters(ctx.project.id, agentId);
  const redriveOne = (inboxId: number, eventId: string) =>
    admin
      ? html`<form method="post" action="${path}/redrive">${csrfField(ctx)}
    <input type="hidden" name="inboxId" value="${inboxId}">
    <button type="submit" aria-label="Redrive event ${eventId}">Redrive</button></form>`
      : "";
  const rows = dead.map((d) =>
    html`
      <tr>
        <td>${d.inboxId}</td>
        <td><code>${d.eventId}</code></td>
        <td>${d.type}</td>
        <td>${time(d.deadAt)}</td>
        <td>${d.reason}</td>
        <td>${d.deliveries}</td>
        <td>${payloadCell(d.payload)}</td>
        <td>${redriveOne(d.inboxId, d.eventId)}</td>
      </tr>
    `
  );
  const list = dead.length
    ? dataTable({
      label: "Dead letters, oldest first",
      columns: ["inboxId", "eventId", "Type", "Dead since", "Reason", "Deliveries", "Payload", "Actions"],
      rows,
    })
    : html`<p>No dead letters.</p>`;
  const forms = admin
    ? html`
      ${dead.length
        ? html`<form method="post" action="${path}/redrive">${csrfField(ctx)}
    <button type="submit">Redrive all ${dead.length} dead letters</button></form>`
        : ""}
      <h3>Replay…</h3>
      <p>Queue again the acknowledged items (still kept) created in a time window: new items with the same eventId
        and payload.</p>
      <form class="filters" method="post" action="${path}/replay">${csrfField(ctx)}
        <div><label for="replay-since">Since</label><input id="replay-since" name="since" required
          placeholder="2025-01-31T00:00:00Z"></div>
        <div><label for="replay-until">Until (default now)</label><input id="replay-until" name="until"></div>
        <button type="submit">Replay</button>
      </form>
    `
    : "";
  return html`
    <h2>Dead letters</h2>
    <p>Items handed out the project's maxDeliveries times without an acknowledgement: no poll gets them until they
      are redriven.</p>
    ${list}
    ${forms}
  `;
}

/**
 * Puts one dead letter (`inboxId`) or all of them back in the inbox, deliveries reset; audited.
 *
 * @param ctx The request (`inboxId` field, optional).
 * @param params The agentId.
 * @returns A redirect to the inbox.
 */
export async function redrivePost(ctx: ProjectContext, [agentId]: string[]): Promise<Response> {
  const given = ctx.form.get("inboxId");
  const inboxId = given === null ? undefined : Number(given);
  if (inboxId !== undefined && (!Number.isSafeInteger(inboxId) || inboxId <= 0)) {
    return messagePage(400, "Bad request", "inboxId must be a positive integer.", overHttps(ctx));
  }
  const ids = inboxId === undefined ? undefined : [inboxId];
  const entry = auditEntry(ctx, ctx.project.id, "inbox.redrive", agentId, { agentId, inboxIds: ids ?? "all" });
  const redriven = await ctx.services.inbox.redrive(ctx.project.id, agentId, ids, entry);
  return redirect(
    `/dashboard/projects/${ctx.project.id}/inbox/${encodeURIComponent(agentId)}?redriven=${redriven}`,
    overHttps(ctx),
  );
}

/**
 * Queues again the acknowledged items of a time window (`since`, `until`); audited.
 *
 * @param ctx The request (`since` and `until` fields, ISO 8601).
 * @param params The agentId.
 * @returns A redirect to the inbox.
 */
export async function replayPost(ctx: ProjectContext, [agentId]: string[]): Promise<Response> {
  const read = (name: string) => {
    const value = ctx.form.get(name)?.trim() ?? "";
    const parsed = timestampInput.safeParse(value);
    return value === "" ? undefined : parsed.success ? parsed.data : null;
  };
  const since = read("since");
  const until = read("until");
  if (since === undefined || since === null || until === null) {
    return messagePage(400, "Bad request", "Since and Until must be ISO 8601 times.", overHttps(ctx));
  }
  const entry = auditEntry(ctx, ctx.project.id, "inbox.replay", agentId, { agentId, since, until: until ?? null });
  const replayed = await ctx.services.inbox.replay(ctx.project.id, agentId, since, until, entry);
  return redirect(
    `/dashboard/projects/${ctx.project.id}/inbox/${encodeURIComponent(agentId)}?replayed=${replayed}`,
    overHttps(ctx),
  );
}
