/**
 * The decision page the SDK renders at `decideUrl` (`GET /svc/approvals/:id`): the intent's title, the key's name,
 * the payload (escaped by `hono/html`), and "Approve" and "Deny" in one form carrying a CSRF token bound to the
 * signed-in user and the approval (the OAuth consent page's token and page, with no script).
 *
 * @module
 */
import { html } from "hono/html";
import { mintSecret } from "../contract/mod.ts";
import type { Executor } from "../db/mod.ts";
import { consentTokens, htmlPage, oauthStorage, pageResponse } from "../oauth/mod.ts";
import type { Approval } from "./approval_service.ts";

/** Signs and checks the decision form's CSRF tokens (ten minutes, the signed-in user, the approval). */
export interface DecisionTokens {
  /** A token for this user and approval. */
  issue(userId: string, approvalId: string): Promise<string>;
  /** Whether the token was issued for this user and approval within ten minutes. */
  check(token: string, userId: string, approvalId: string): Promise<boolean>;
}

/**
 * The decision form's tokens, under the key the consent form uses (kept in the app's database).
 *
 * @param db The app's database.
 * @param now The clock, in milliseconds.
 * @returns The tokens.
 */
export function decisionTokens(db: Executor, now: () => number): DecisionTokens {
  const tokens = consentTokens(() => oauthStorage(db).consentKey(mintSecret("")), ["approval_id"]);
  return {
    issue: (userId, approvalId) => tokens.issue(userId, { approval_id: approvalId }, now()),
    check: (token, userId, approvalId) => tokens.check(token, userId, { approval_id: approvalId }, now()),
  };
}

/**
 * The page where the user decides: the form while pending, else where it stands.
 *
 * @param approval The user's approval.
 * @param csrf The form's token.
 * @param action The path the form posts to.
 * @returns The response.
 */
export function decisionPage(approval: Approval, csrf: string, action: string): Promise<Response> {
  const { title, keyName, intent, payload, expiresAt, status } = approval;
  const what = html`
    <p>Your agent key <strong>${keyName}</strong> asks to run <code>${intent}</code> with:</p>
    <pre>${JSON.stringify(payload, null, 2)}</pre>
  `;
  if (status !== "pending") {
    return pageResponse(htmlPage(
      `${title}: ${status}`,
      html`<main>
  <h1>${title}: ${status}</h1>
  ${what}
  <p class="note">This request is ${status}; there is nothing left to decide.</p>
</main>`,
      [],
    ));
  }
  return pageResponse(htmlPage(
    `Approve ${title}?`,
    html`<main>
  <h1>Approve <strong>${title}</strong>?</h1>
  ${what}
  <p class="note">Nothing runs until you approve. If nobody decides, it expires at ${expiresAt}.</p>
  <form method="post" action="${action}">
    <input type="hidden" name="csrf" value="${csrf}">
    <div class="reason">
      <label for="reason">Why you deny it (optional, the agent sees it)</label>
      <textarea id="reason" name="reason" maxlength="1000"></textarea>
    </div>
    <div class="actions">
      <button type="submit" name="decision" value="deny">Deny</button>
      <button type="submit" name="decision" value="approve">Approve</button>
    </div>
  </form>
</main>`,
    [],
  ));
}

/**
 * The page after a decision (or a form that could not be taken).
 *
 * @param heading What happened.
 * @param message One sentence more.
 * @param status The HTTP status.
 * @returns The response.
 */
export function decidedPage(heading: string, message: string, status = 200): Promise<Response> {
  return pageResponse(
    htmlPage(
      heading,
      html`<main>
  <h1>${heading}</h1>
  <p>${message}</p>
</main>`,
      [],
    ),
    status,
  );
}
