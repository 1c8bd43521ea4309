/**
 * The operators, for admins only (viewers are refused): the list; "Invite operator", which shows a one-time link
 * once; "Change role" and "Remove operator" behind a confirmation. Every change asks for the admin's password (and
 * code, with two-factor sign-in on) again, under the sign-in limiter, and goes through the operators' service, which
 * audits it and never leaves the cloud without an admin.
 *
 * @module
 */
import { html } from "hono/html";
import {
  INVITE_LINK_TTL_MS,
  isEmail,
  OPERATOR_ROLES,
  type OperatorRecord,
  type OperatorRole,
} from "../operators/mod.ts";
import { field } from "./forms.ts";
import { dataTable, messagePage, notice, time } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { operatorActor, type PageContext } from "./page_context.ts";
import { reauthenticate } from "./reauthentication.ts";
import { type Html, htmlPage, redirect } from "./responses.ts";
import { overHttps } from "./visit.ts";

const BASE = "/dashboard/operators";

const DONE: Record<string, string> = {
  role: "The role is changed; the operator signs in again.",
  removed: "The operator is removed and signed out.",
};

function frame(ctx: PageContext, title: string, body: Html, status = 200): Promise<Response> {
  return htmlPage(layout(ctx, { title, section: "Operators", body }), overHttps(ctx), status);
}

/** Viewers may not see the operators. */
function refused(ctx: PageContext): Promise<Response> | null {
  if (ctx.session.operator.role === "admin") return null;
  return messagePage(403, "Refused", "Only admins manage operators.", overHttps(ctx));
}

/** The admin's password and code again: every change here asks for them. */
function reauthenticationFields(ctx: PageContext): Html {
  const twoFactor = ctx.session.operator.totpSecret !== null;
  return html`<div class="field"><label for="password">Your password</label><input id="password" name="password"
    type="password" autocomplete="current-password" required></div>
${
    twoFactor
      ? html`<div class="field"><label for="code">Your code</label><input id="code" name="code"
    autocomplete="one-time-code" inputmode="numeric" required></div>`
      : ""
  }`;
}

function roleSelect(id: string, chosen: OperatorRole): Html {
  return html`<select id="${id}" name="role">${
    OPERATOR_ROLES.map((r) => html`<option value="${r}" ${r === chosen ? html`selected` : ""}>${r}</option>`)
  }</select>`;
}

/**
 * The operators page: the list and the invite form.
 *
 * @param ctx The request.
 * @param problem A reason the last invite was refused.
 * @param status The status of the answer with a problem (default 400).
 * @returns The page; 403 for a viewer.
 */
export async function operatorsPage(ctx: PageContext, problem?: string, status = 400): Promise<Response> {
  const no = refused(ctx);
  if (no) return no;
  const operators = await ctx.services.operators.list();
  const me = ctx.session.operator.id;
  const done = DONE[ctx.url.searchParams.get("done") ?? ""];
  const rows = operators.map((o) =>
    html`
      <tr>
        <td>${o.email}${o.id === me
          ? html`
            <span class="muted">(you)</span>
          `
          : ""}</td>
        <td>${o.role}</td>
        <td>${o.totpSecret === null ? "off" : "on"}</td>
        <td>${time(o.createdAt)}</td>
        <td
          class="actions"><a href="${BASE}/${o.id}/role">Change role<span class="visually-hidden"> of ${o
            .email}</span></a>${o.id === me ? "" : html`
            <a class="danger" href="${BASE}/${o.id}/remove">Remove<span class="visually-hidden"> ${o.email}</span></a>
          `}</td>
      </tr>
    `
  );
  const body = html`
    ${problem ? notice("error", problem) : ""}${done ? notice("success", done) : ""}
    ${dataTable({
      label: "Operators list",
      caption: "Operators, oldest first",
      columns: ["Email", "Role", "Two-factor", "Since", "Actions"],
      rows: rows,
    })}
    <h2>Invite an operator</h2>
    <p>The invite is a link that works once, for ${INVITE_LINK_TTL_MS / 3_600_000} hours: its holder chooses a password
    and joins with the role given. Send it over a channel you trust.</p>
    <form method="post" action="${BASE}/invite">${csrfField(ctx)}
      <div class="field"><label for="invite-email">Email of the new operator</label>
        <input id="invite-email" name="email" type="email" autocomplete="off" required
          value="${problem ? field(ctx.form, "email") : ""}"></div>
      <div class="field"><label for="invite-role">Role</label>${roleSelect("invite-role", "viewer")}</div>
      ${reauthenticationFields(ctx)}
      <button type="submit">Invite operator</button>
    </form>
  `;
  return frame(ctx, "Operators", body, problem ? status : 200);
}

/**
 * Invites an operator and shows the one-time link, once.
 *
 * @param ctx The request (`email`, `role`, `password`, `code` fields).
 * @returns The page with the link, or the operators page with the reason.
 */
export async function invitePost(ctx: PageContext): Promise<Response> {
  const email = field(ctx.form, "email").toLowerCase();
  const role = field(ctx.form, "role");
  if (!isEmail(email)) return operatorsPage(ctx, "Enter a valid email address.");
  if (!isRole(role)) return operatorsPage(ctx, "Choose the role admin or viewer.");
  const checked = await recheck(ctx);
  if (checked) return checked((problem, status) => operatorsPage(ctx, problem, status));
  const invited = await ctx.services.operators.invite(email, role, operatorActor(ctx), ctx.now);
  if (invited === "taken") return operatorsPage(ctx, "An operator with this email exists already.", 409);
  const link = `${ctx.origin}${invited.link}`;
  const body = html`
    ${notice("notice", "Copy the invite link now: it will not be shown again. It works once, until it expires.")}
    <dl>
      <dt>For</dt>
      <dd>${email} (${role})</dd>
      <dt>Invite link</dt>
      <dd><code id="invite-link">${link}</code></dd>
      <dt>Expires</dt>
      <dd>${time(invited.expiresAt)}</dd>
    </dl>
    <p><a href="${BASE}">Back to the operators</a></p>
  `;
  return frame(ctx, "Invite link", body);
}

/**
 * The form that changes an operator's role.
 *
 * @param ctx The request.
 * @param params The operator's id.
 * @param problem A reason the last change was refused.
 * @param status The status of the answer with a problem (default 400).
 * @returns The page.
 */
export async function rolePage(ctx: PageContext, [id]: string[], problem?: string, status = 400): Promise<Response> {
  const found = await target(ctx, id);
  if (found instanceof Response) return found;
  const body = html`${problem ? notice("error", problem) : ""}
<p>Change the role of <strong>${found.email}</strong> (now <strong>${found.role}</strong>)? An admin changes things,
a viewer only reads. Their sessions end: they sign in again with the new role. The last admin stays an admin.</p>
<form method="post" action="${BASE}/${found.id}/role">${csrfField(ctx)}
  <div class="field"><label for="role">New role</label>${
    roleSelect("role", found.role === "admin" ? "viewer" : "admin")
  }</div>
  ${reauthenticationFields(ctx)}
  <button type="submit">Change role</button>
  <a href="${BASE}">Cancel</a>
</form>`;
  return frame(ctx, "Change role", body, problem ? status : 200);
}

/**
 * Changes an operator's role.
 *
 * @param ctx The request (`role`, `password`, `code` fields).
 * @param params The operator's id.
 * @returns A redirect to the operators, or the form with the reason.
 */
export async function rolePost(ctx: PageContext, params: string[]): Promise<Response> {
  const found = await target(ctx, params[0]);
  if (found instanceof Response) return found;
  const role = field(ctx.form, "role");
  if (!isRole(role)) return rolePage(ctx, params, "Choose the role admin or viewer.");
  const checked = await recheck(ctx);
  if (checked) return checked((problem, status) => rolePage(ctx, params, problem, status));
  const outcome = await ctx.services.operators.changeRole(found, role, operatorActor(ctx), ctx.now);
  if (outcome === "unknown") return gone(ctx);
  if (outcome === "last_admin") {
    return rolePage(ctx, params, "This is the last admin: make another operator an admin first.", 409);
  }
  // An admin who made themselves a viewer is signed out with their sessions: the sign-in page follows.
  return redirect(`${BASE}?done=role`, overHttps(ctx));
}

/**
 * The confirmation before removing an operator.
 *
 * @param ctx The request.
 * @param params The operator's id.
 * @param problem A reason the last removal was refused.
 * @param status The status of the answer with a problem (default 400).
 * @returns The page.
 */
export async function removePage(ctx: PageContext, [id]: string[], problem?: string, status = 400): Promise<Response> {
  const found = await target(ctx, id);
  if (found instanceof Response) return found;
  if (found.id === ctx.session.operator.id) {
    return messagePage(400, "Refused", "You cannot remove yourself; another admin can.", overHttps(ctx));
  }
  const body = html`${problem ? notice("error", problem) : ""}
<p>Remove the operator <strong>${found.email}</strong> (${found.role})? Their sessions end at once and they can no
longer sign in. The audit log keeps their entries.</p>
<form method="post" action="${BASE}/${found.id}/remove">${csrfField(ctx)}
  ${reauthenticationFields(ctx)}
  <button type="submit" class="danger">Remove operator</button>
  <a href="${BASE}">Cancel</a>
</form>`;
  return frame(ctx, "Remove operator", body, problem ? status : 200);
}

/**
 * Removes an operator.
 *
 * @param ctx The request (`password`, `code` fields).
 * @param params The operator's id.
 * @returns A redirect to the operators, or the confirmation with the reason.
 */
export async function removePost(ctx: PageContext, params: string[]): Promise<Response> {
  const found = await target(ctx, params[0]);
  if (found instanceof Response) return found;
  const checked = await recheck(ctx);
  if (checked) return checked((problem, status) => removePage(ctx, params, problem, status));
  const outcome = await ctx.services.operators.removeByAdmin(found, operatorActor(ctx), ctx.now);
  if (outcome === "unknown") return gone(ctx);
  if (outcome === "self") return messagePage(400, "Refused", "You cannot remove yourself.", overHttps(ctx));
  if (outcome === "last_admin") return removePage(ctx, params, "This is the last admin: it cannot be removed.", 409);
  return redirect(`${BASE}?done=removed`, overHttps(ctx));
}

function isRole(role: string): role is OperatorRole {
  return (OPERATOR_ROLES as readonly string[]).includes(role);
}

/** The operator a page is about, or the refusal to answer (403 for a viewer, 404 when unknown). */
async function target(ctx: PageContext, id: string): Promise<OperatorRecord | Response> {
  const no = refused(ctx);
  if (no) return await no;
  return await ctx.services.operators.find(id) ?? await gone(ctx);
}

function gone(ctx: PageContext): Promise<Response> {
  return messagePage(404, "Not found", "There is no such operator.", overHttps(ctx));
}

type Answer = (problem: string, status: number) => Promise<Response>;

/** Asks for the admin's password (and code) again: `null` when right, else how to answer (400, or 429 to wait). */
async function recheck(ctx: PageContext): Promise<((answer: Answer) => Promise<Response>) | null> {
  const op = ctx.session.operator;
  const checked = await reauthenticate(ctx, op, ctx.form.get("password") ?? "", field(ctx.form, "code"));
  if (checked.ok) return null;
  if (checked.waitMs === 0) return (answer) => answer("That password or code is not valid.", 400);
  const seconds = Math.ceil(checked.waitMs / 1000);
  return async (answer) => {
    const res = await answer(`Too many wrong tries. Try again in ${seconds} seconds.`, 429);
    res.headers.set("retry-after", String(seconds));
    return res;
  };
}
