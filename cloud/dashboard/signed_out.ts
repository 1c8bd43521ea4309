/**
 * What a signed-out visitor reaches: the sign-in form and its post, the
 * first-run setup link, and sign-out. Their forms carry a CSRF token bound to
 * a pre-session cookie.
 *
 * @module
 */
import { html } from "hono/html";
import { csrfToken, trustedPost } from "./csrf.ts";
import { csrfField, document } from "./layout.ts";
import { messagePage, notice } from "./fragments.ts";
import { field } from "./forms.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../operators/mod.ts";
import { type Html, htmlPage, redirect } from "./responses.ts";
import { cookie, cookiesOf, PRE_SESSION_COOKIE, SESSION_COOKIE, type SessionLimits } from "../operators/mod.ts";
import type { OperatorService, SignInAttempt, SignInLimiter } from "../operators/mod.ts";
import { isEmail } from "../operators/mod.ts";
import { mintSecret } from "../../core/contract/mod.ts";
import { operatorInputProblem } from "../operators/mod.ts";
import type { AuditActor } from "../audit/mod.ts";
import { overHttps, type Visit } from "./visit.ts";

/** What the signed-out pages need. */
export interface SignedOutDeps {
  /** The operators' service. */
  operators: OperatorService;
  /** Counts failed sign-ins. */
  limiter: SignInLimiter;
  /** Session lifetimes. */
  limits: SessionLimits;
}

/**
 * The pre-session cookie's value, minting one (and its `Set-Cookie`) when absent.
 *
 * @param visit The request.
 * @returns The seed of the signed-out forms' CSRF token, and the cookie to set when new.
 */
export function preSession(visit: Visit): { seed: string; cookies: string[] } {
  const seed = cookiesOf(visit.req, overHttps(visit)).get(PRE_SESSION_COOKIE);
  if (seed && /^[A-Za-z0-9]{40}$/.test(seed)) return { seed, cookies: [] };
  const fresh = mintSecret("");
  return { seed: fresh, cookies: [cookie(PRE_SESSION_COOKIE, fresh, overHttps(visit))] };
}

/**
 * The sign-in page.
 *
 * @param visit The request.
 * @param problem A message to show, and its status.
 * @returns The page.
 */
export async function signInPage(visit: Visit, problem?: { status: number; message: string }): Promise<Response> {
  const { seed, cookies } = preSession(visit);
  const body = html`<main>
<h1>Sign in</h1>
${problem ? notice("error", problem.message) : ""}
<form method="post" action="/dashboard/sign-in">
  ${csrfField({ csrf: await csrfToken(seed) })}
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="code">Code</label>
    <input id="code" name="code" autocomplete="one-time-code" aria-describedby="code-hint">
    <p id="code-hint" class="muted">Only if two-factor sign-in is on: the six digits of your app, or a recovery code.</p></div>
  <button type="submit">Sign in</button>
</form>
</main>`;
  return htmlPage(document("Sign in", body), overHttps(visit), problem?.status ?? 200, cookies);
}

/**
 * Checks a sign-in post, slowing down repeated failures per address and per account.
 *
 * @param deps Storage, limiter and session limits.
 * @param visit The request.
 * @param form The posted form.
 * @returns A redirect with the session cookie, or the form again with the reason.
 */
export async function signIn(deps: SignedOutDeps, visit: Visit, form: URLSearchParams): Promise<Response> {
  if (
    !await trustedPost(visit.req, form, cookiesOf(visit.req, overHttps(visit)).get(PRE_SESSION_COOKIE), visit.origin)
  ) {
    return signInPage(visit, { status: 403, message: "The form expired or came from another site. Try again." });
  }
  const email = field(form, "email").toLowerCase();
  // Checked before it is looked up, hashed for, or written to the audit log as an actor.
  if (!isEmail(email)) return signInPage(visit, { status: 400, message: "Enter a valid email address." });
  const operator = await deps.operators.findByEmail(email);
  const attempt: SignInAttempt = { address: visit.address, email, operator: operator !== null };
  const wait = deps.limiter.waitMs(attempt, visit.now);
  if (wait > 0) {
    const response = await signInPage(visit, {
      status: 429,
      message: `Too many failed attempts. Try again in ${Math.ceil(wait / 1000)} seconds.`,
    });
    response.headers.set("retry-after", String(Math.ceil(wait / 1000)));
    return response;
  }
  // Counted before the check (no await since the wait was read), so concurrent attempts cannot all pass.
  deps.limiter.fail(attempt, visit.now);
  const password = (form.get("password") ?? "").slice(0, 1000);
  const passwordOk = await deps.operators.checkPassword(operator, password);
  if (
    !operator || !passwordOk || !await deps.operators.secondFactorOk(operator, field(form, "code"), visit.now)
  ) {
    // No change to write: the failure's audit entry alone.
    await deps.operators.signInFailed(operator === null ? null : operator.id, actor(visit, email), visit.now);
    return signInPage(visit, { status: 401, message: "Wrong email, password or code." });
  }
  deps.limiter.release(attempt, visit.now);
  deps.limiter.succeed(attempt);
  const token = await deps.operators.signIn(operator, actor(visit, operator.email), visit.now, deps.limits);
  const maxAge = Math.floor(deps.limits.maxMs / 1000);
  return redirect("/dashboard/projects", overHttps(visit), [cookie(SESSION_COOKIE, token, overHttps(visit), maxAge)]);
}

/**
 * Ends the session of a sign-out post and clears its cookie.
 *
 * @param operators The operators' service.
 * @param visit The request.
 * @param email The operator signing out.
 * @param token The session token.
 * @returns A redirect to the sign-in page.
 */
export async function signOut(
  operators: OperatorService,
  visit: Visit,
  email: string,
  token: string,
): Promise<Response> {
  await operators.signOut(token, actor(visit, email), visit.now);
  return redirect("/dashboard/sign-in", overHttps(visit), [cookie(SESSION_COOKIE, "", overHttps(visit), 0)]);
}

/**
 * The first-run setup page of a setup link: the form that creates the first admin.
 *
 * @param deps Storage, limiter and session limits.
 * @param visit The request (its `token` query parameter).
 * @param problem A message to show.
 * @returns The page, or a refusal when the link is used or expired.
 */
export async function setupPage(deps: SignedOutDeps, visit: Visit, problem?: string): Promise<Response> {
  const token = new URL(visit.req.url).searchParams.get("token") ?? "";
  if (!await deps.operators.setupLinkValid(token, visit.now)) {
    return messagePage(410, "Setup link used or expired", setupGone, overHttps(visit));
  }
  const { seed, cookies } = preSession(visit);
  const body: Html = html`<main>
<h1>Create the first admin</h1>
${problem ? notice("error", problem) : ""}
<form method="post" action="/dashboard/setup?token=${token}">
  ${csrfField({ csrf: await csrfToken(seed) })}
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}"
      maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="password-rule" required>
    <p id="password-rule" class="muted">At least ${MIN_PASSWORD_LENGTH} characters (at most ${MAX_PASSWORD_LENGTH}).</p></div>
  <button type="submit">Create admin</button>
</form>
</main>`;
  return htmlPage(document("Set up", body), overHttps(visit), problem ? 400 : 200, cookies);
}

const setupGone = "This setup link was already used or has expired. Sign in, or ask for a new link: restart " +
  "`serve` on a database without operators, or run `admin create`.";

/**
 * Creates the first admin from a setup link, once, and signs them in.
 *
 * @param deps Storage, limiter and session limits.
 * @param visit The request.
 * @param form The posted form.
 * @returns A redirect with the session cookie, or the form again with the reason.
 */
export async function setUp(deps: SignedOutDeps, visit: Visit, form: URLSearchParams): Promise<Response> {
  if (
    !await trustedPost(visit.req, form, cookiesOf(visit.req, overHttps(visit)).get(PRE_SESSION_COOKIE), visit.origin)
  ) {
    return messagePage(
      403,
      "Refused",
      "The form expired or came from another site. Open the link again.",
      overHttps(visit),
    );
  }
  const token = new URL(visit.req.url).searchParams.get("token") ?? "";
  // The token first: a made-up or spent link never costs a password hash.
  if (!await deps.operators.setupLinkValid(token, visit.now)) {
    return messagePage(410, "Setup link used or expired", setupGone, overHttps(visit));
  }
  const email = field(form, "email");
  const password = form.get("password") ?? "";
  const problem = operatorInputProblem(email, password);
  if (problem) return setupPage(deps, visit, problem);
  const session = await deps.operators.setUp(token, email, password, visit.address, visit.now, deps.limits);
  if (session === null) return messagePage(410, "Setup link used or expired", setupGone, overHttps(visit));
  const maxAge = Math.floor(deps.limits.maxMs / 1000);
  return redirect("/dashboard/projects", overHttps(visit), [cookie(SESSION_COOKIE, session, overHttps(visit), maxAge)]);
}

function actor(visit: Visit, email: string): AuditActor {
  return { actor: email, sourceAddress: visit.address };
}
