/**
 * Where an invite link leads a signed-out visitor: the form that chooses a password and joins with the role the
 * invite gives, once, then signs in. Its form carries a CSRF token bound to the pre-session cookie, as sign-in's.
 *
 * @module
 */
import { html } from "hono/html";
import { cookie, cookiesOf, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PRE_SESSION_COOKIE } from "../operators/mod.ts";
import { INVITE_PATH, operatorInputProblem, SESSION_COOKIE } from "../operators/mod.ts";
import { csrfToken, trustedPost } from "./csrf.ts";
import { messagePage, notice } from "./fragments.ts";
import { csrfField, document } from "./layout.ts";
import { htmlPage, redirect } from "./responses.ts";
import { preSession, type SignedOutDeps } from "./signed_out.ts";
import { overHttps, type Visit } from "./visit.ts";

const INVITE_GONE = "This invite link was already used, has expired, or its email is an operator's already. " +
  "Sign in, or ask an admin for a new invite.";

function tokenOf(visit: Visit): string {
  return new URL(visit.req.url).searchParams.get("token") ?? "";
}

/**
 * The page of an invite link: the email and role it gives, and the password to choose.
 *
 * @param deps The operators' service, limiter and session limits.
 * @param visit The request (its `token` query parameter).
 * @param problem A reason the last try was refused.
 * @returns The page, or 410 when the link cannot be used.
 */
export async function invitePage(deps: SignedOutDeps, visit: Visit, problem?: string): Promise<Response> {
  const token = tokenOf(visit);
  const invite = await deps.operators.invitation(token, visit.now);
  if (!invite) return messagePage(410, "Invite link used or expired", INVITE_GONE, overHttps(visit));
  const { seed, cookies } = preSession(visit);
  const body = html`<main>
<h1>Join as ${invite.role}</h1>
${problem ? notice("error", problem) : ""}
<p>${invite.invitedBy} invited <strong>${invite.email}</strong> to operate this cloud as <strong>${invite.role}</strong>.
Choose a password to join; the link then stops working.</p>
<form method="post" action="${INVITE_PATH}?token=${token}">
  ${csrfField({ csrf: await csrfToken(seed) })}
  <input type="hidden" name="email" value="${invite.email}" autocomplete="username">
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}"
      maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="password-rule" required>
    <p id="password-rule" class="muted">At least ${MIN_PASSWORD_LENGTH} characters (at most ${MAX_PASSWORD_LENGTH}).</p></div>
  <button type="submit">Join</button>
</form>
</main>`;
  return htmlPage(document("Join", body), overHttps(visit), problem ? 400 : 200, cookies);
}

/**
 * Joins through an invite link, once, and signs the new operator in.
 *
 * @param deps The operators' service, limiter and session limits.
 * @param visit The request.
 * @param form The posted form.
 * @returns A redirect with the session cookie, or the form again with the reason.
 */
export async function joinPost(deps: SignedOutDeps, visit: Visit, form: URLSearchParams): Promise<Response> {
  const secure = overHttps(visit);
  if (!await trustedPost(visit.req, form, cookiesOf(visit.req, secure).get(PRE_SESSION_COOKIE), visit.origin)) {
    return messagePage(403, "Refused", "The form expired or came from another site. Open the link again.", secure);
  }
  // The link first: a made-up or spent one never costs a password hash.
  const invite = await deps.operators.invitation(tokenOf(visit), visit.now);
  if (!invite) return messagePage(410, "Invite link used or expired", INVITE_GONE, secure);
  const password = form.get("password") ?? "";
  const problem = operatorInputProblem(null, password);
  if (problem) return invitePage(deps, visit, problem);
  const operator = await deps.operators.join(invite, password, visit.address, visit.now);
  if (!operator) return messagePage(410, "Invite link used or expired", INVITE_GONE, secure);
  const by = { actor: operator.email, sourceAddress: visit.address };
  const token = await deps.operators.signIn(operator, by, visit.now, deps.limits);
  const maxAge = Math.floor(deps.limits.maxMs / 1000);
  return redirect("/dashboard/projects", secure, [cookie(SESSION_COOKIE, token, secure, maxAge)]);
}
