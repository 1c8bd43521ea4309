/**
 * The signed-in operator's account: turning the TOTP second factor on
 * (the secret shown to enter into an app, confirmed by a code, then ten
 * recovery codes shown once) or off (with the password and a current or
 * recovery code), wrong codes slowed down as at sign-in.
 *
 * @module
 */
import { html } from "hono/html";
import { field } from "./forms.ts";
import { notice } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { operatorActor, type PageContext } from "./page_context.ts";
import { type Html, htmlPage } from "./responses.ts";
import { newRecoveryCodes, newTotpSecret, totpUri } from "../operators/mod.ts";
import { overHttps } from "./visit.ts";
import { limitedCheck, reauthenticate } from "./reauthentication.ts";

function accountFrame(ctx: PageContext, body: Html, status = 200): Promise<Response> {
  return htmlPage(layout(ctx, { title: "Account", section: "Account", body }), overHttps(ctx), status);
}

/**
 * The account page.
 *
 * @param ctx The request.
 * @returns The page.
 */
export function accountPage(ctx: PageContext): Promise<Response> {
  const op = ctx.session.operator;
  const body = html`<p>Signed in as <strong>${op.email}</strong>, role <strong>${op.role}</strong>.</p>
<h2>Two-factor sign-in</h2>
${
    op.totpSecret === null
      ? html`<p>Off. Turn it on to ask for a code from an authenticator app at each sign-in.</p>
<form method="post" action="/dashboard/account/totp/start">${csrfField(ctx)}
  <button type="submit">Turn on two-factor sign-in</button></form>`
      : html`<p>On; ${op.recoveryCodeHashes.length} recovery codes left.</p>
<form method="post" action="/dashboard/account/totp/off">${csrfField(ctx)}
  <div class="field"><label for="password">Password</label><input id="password" name="password" type="password"
    autocomplete="current-password" required></div>
  <div class="field"><label for="code">Code</label><input id="code" name="code" autocomplete="one-time-code"
    inputmode="numeric" required></div>
  <button type="submit" class="danger">Turn off two-factor sign-in</button></form>`
  }`;
  return accountFrame(ctx, body);
}

/**
 * Shows a fresh TOTP secret and asks for a code from it.
 *
 * @param ctx The request.
 * @param secret The secret being confirmed (after a wrong code), else a fresh one.
 * @returns The page.
 */
export function totpStartPost(ctx: PageContext, secret: string = newTotpSecret()): Promise<Response> {
  const wrong = ctx.form.has("code");
  const body = html`${wrong ? notice("error", "That code is not valid; try the current one.") : ""}
<p>Enter this secret into your authenticator app (or open the link on a phone), then type the code it shows.</p>
<p>Secret: <code id="totp-secret">${secret}</code></p>
<p><a href="${totpUri(secret, ctx.session.operator.email)}">Open in an authenticator app</a></p>
<form method="post" action="/dashboard/account/totp/confirm">${csrfField(ctx)}
  <input type="hidden" name="secret" value="${secret}">
  <div class="field"><label for="code">Code</label><input id="code" name="code" autocomplete="one-time-code"
    inputmode="numeric" required></div>
  <button type="submit">Confirm</button>
</form>`;
  return accountFrame(ctx, body, wrong ? 400 : 200);
}

/**
 * Turns the second factor on when the code matches the secret, and shows the recovery codes once.
 *
 * @param ctx The request (`secret` and `code` fields).
 * @returns The page.
 */
export async function totpConfirmPost(ctx: PageContext): Promise<Response> {
  const secret = field(ctx.form, "secret");
  const op = ctx.session.operator;
  if (op.totpSecret !== null) return accountPage(ctx);
  if (!/^[A-Z2-7]{32}$/.test(secret)) return totpStartPost(ctx);
  const checked = await limitedCheck(
    ctx,
    op.email,
    () => ctx.services.operators.acceptTotp(op, secret, field(ctx.form, "code"), ctx.now),
  );
  if (!checked.ok && checked.waitMs > 0) return tooManyCodes(ctx, checked.waitMs);
  if (!checked.ok) return totpStartPost(ctx, secret);
  const { codes, hashes } = await newRecoveryCodes();
  await ctx.services.operators.enableTwoFactor(op, secret, hashes, operatorActor(ctx), ctx.now);
  const body = html`${notice("success", "Two-factor sign-in is on.")}
${
    notice(
      "notice",
      "Keep these recovery codes somewhere safe: each works once instead of a code, and they will not be shown again.",
    )
  }
<ul id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a href="/dashboard/projects">Continue</a></p>`;
  return accountFrame(ctx, body);
}

/**
 * Turns the second factor off when the password and the code (or a recovery code) are right, slowed down
 * like sign-in after a few wrong tries.
 *
 * @param ctx The request (`password` and `code` fields).
 * @returns The page.
 */
export async function totpOffPost(ctx: PageContext): Promise<Response> {
  const op = ctx.session.operator;
  if (op.totpSecret === null) return accountPage(ctx);
  const checked = await reauthenticate(ctx, op, ctx.form.get("password") ?? "", field(ctx.form, "code"));
  if (!checked.ok && checked.waitMs > 0) return tooManyCodes(ctx, checked.waitMs);
  if (!checked.ok) {
    return accountFrame(
      ctx,
      html`${notice("error", "That password or code is not valid.")}
<p><a href="/dashboard/account">Back to the account</a></p>`,
      400,
    );
  }
  await ctx.services.operators.disableTwoFactor(op, operatorActor(ctx), ctx.now);
  const updated = { ...ctx, session: { ...ctx.session, operator: { ...op, totpSecret: null } } };
  return accountPage(updated);
}

/** The answer while the operator's account or address must wait after wrong codes: 429 with `Retry-After`. */
async function tooManyCodes(ctx: PageContext, waitMs: number): Promise<Response> {
  const seconds = Math.ceil(waitMs / 1000);
  const res = await accountFrame(
    ctx,
    html`${notice("error", `Too many wrong codes. Try again in ${seconds} seconds.`)}
<p><a href="/dashboard/account">Back to the account</a></p>`,
    429,
  );
  res.headers.set("retry-after", String(seconds));
  return res;
}
