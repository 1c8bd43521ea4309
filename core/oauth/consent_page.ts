/**
 * The consent page and the other pages of the authorization endpoint:
 * server-rendered with `hono/html` (escaped by default), no script, a strict
 * Content-Security-Policy with a per-response style nonce, and no framing.
 *
 * @module
 */
import { html } from "hono/html";
import { base64url } from "./pkce.ts";
import type { AuthorizationRequest } from "./authorization_request.ts";
import { redirectTarget } from "./redirect_uri.ts";
import { PLATFORM } from "../platform/mod.ts";

type Html = ReturnType<typeof html>;

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #f6f6f4; }
  main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #ddd; border-radius: 8px; }
  h1 { font-size: 1.35rem; line-height: 1.3; margin: 0 0 1rem; overflow-wrap: anywhere; }
  p, li { overflow-wrap: anywhere; }
  fieldset { border: 1px solid #ccc; border-radius: 6px; margin: 1rem 0; padding: .5rem 1rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  .scope { display: flex; gap: .5rem; align-items: center; padding: .35rem 0; }
  .scope input { width: 1.25rem; height: 1.25rem; margin: 0; }
  code { font-size: .95em; }
  .actions { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; margin-top: 1.25rem; }
  button { font: inherit; font-weight: 600; padding: .75rem 1rem; border-radius: 6px; border: 2px solid #1a1a1a;
    background: #fff; color: #1a1a1a; cursor: pointer; min-height: 44px; }
  button:focus-visible, input:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
  .note { color: #444; font-size: .9rem; }
  pre { background: #f0f0ee; padding: .75rem; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere;
    font-size: .9rem; max-height: 20rem; overflow: auto; }
  .reason label { display: block; font-weight: 600; margin-top: 1rem; }
  textarea { font: inherit; width: 100%; box-sizing: border-box; min-height: 4rem; border: 1px solid #767676;
    border-radius: 6px; padding: .5rem; }
  textarea:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
  .about { color: #444; font-size: .9rem; margin: 0 0 .5rem 1.75rem; }
  @media (max-width: 30rem) { main { margin: 0; border: 0; border-radius: 0; } }
`;

/** What a scope allows, as the consent page says it. */
export interface ScopeAbout {
  /** The app's description of the scope, when it gave one. */
  description?: string;
  /** The titles of the intents that need the scope. */
  intents: string[];
}

/** Who decides and what each scope allows. */
export interface ConsentContext {
  /** The signed-in user (the app's user id). */
  user: string;
  /** What each scope allows, by name. */
  scopes: Readonly<Record<string, ScopeAbout>>;
}

/**
 * The consent page: the client's name and where the user is sent back to, the signed-in user, and one checkbox per
 * requested scope labelled with the scope's name, described by what the app says it allows and the intents it
 * opens.
 *
 * @param request The checked authorization request.
 * @param csrf The consent token.
 * @param formAction The authorization endpoint's path.
 * @param context The signed-in user and what each scope allows.
 * @returns The page and the origins the form may be sent on to (for `form-action`).
 */
export function consentPage(
  request: AuthorizationRequest,
  csrf: string,
  formAction: string,
  context: ConsentContext = { user: "", scopes: {} },
): Page {
  const { client, redirectUri, scopes, params } = request;
  const about = (scope: string) => {
    const { description, intents = [] } = context.scopes[scope] ?? {};
    const opens = intents.length ? html`It allows: ${intents.join(", ")}.` : html``;
    return description === undefined ? opens : html`${description}. ${opens}`;
  };
  const target = redirectTarget(redirectUri);
  const identity = client.source === "metadata-document"
    ? html`Its identity is published at <strong>${new URL(client.clientId).host}</strong>.`
    : client.source === "registration"
    ? html`It registered itself under this name; the name is not verified.`
    : html`This app registered it.`;
  const body = html`<main>
  <h1>Allow <strong>${client.name}</strong> to act for you?</h1>
  ${context.user ? html`<p>You are signed in as <strong>${context.user}</strong>.</p>` : html``}
  <p>${identity} After you decide, you are sent back to <strong>${target.host}</strong>.</p>
  <form method="post" action="${formAction}">
    ${Object.entries(params).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <input type="hidden" name="csrf" value="${csrf}">
    <fieldset>
      <legend>What ${client.name} may do</legend>
      ${
    scopes.length
      ? scopes.map((scope, i) =>
        html`
          <div class="scope"><input type="checkbox" id="scope-${i}" name="granted_scope" value="${scope}" checked>
                  <label for="scope-${i}">${scope}</label></div>
          <p class="about" id="scope-${i}-about">${about(scope)}</p>
        `
      )
      : html`<p>Only what needs no permission.</p>`
  }
    </fieldset>
    <p class="note">Allowing gives ${client.name} an agent key in your name, limited to what is checked. You can
      revoke it at any time with your other agent keys.</p>
    <div class="actions">
      <button type="submit" name="decision" value="deny">Deny</button>
      <button type="submit" name="decision" value="allow">Allow</button>
    </div>
  </form>
</main>`;
  return htmlPage(`Allow ${client.name} to act for you?`, body, [target.origin]);
}

/**
 * A page that says why the request cannot go on (an unknown client, a redirect URI it did not register).
 *
 * @param message The reason.
 * @returns The page.
 */
export function refusalPage(message: string): Page {
  return htmlPage(
    "This authorization request cannot be completed",
    html`<main>
  <h1>This authorization request cannot be completed</h1>
  <p>${message}.</p>
  <p class="note">Nothing was granted. Go back to the app that sent you here and try connecting again.</p>
</main>`,
    [],
  );
}

/**
 * The page for a signed-out user when the app configured no sign-in URL.
 *
 * @returns The page.
 */
export function signInFirstPage(): Page {
  return htmlPage(
    "Sign in first",
    html`<main>
  <h1>Sign in first</h1>
  <p>Sign in to this app in this browser, then reload this page to decide what the client may do.</p>
</main>`,
    [],
  );
}

/** A page, before its headers are set. */
export interface Page {
  /** The document. */
  body: Html;
  /** Origins the page's form may be sent to besides its own. */
  formTargets: string[];
}

/**
 * A page of the app's own: the document around `main`, with the style every such page shares.
 *
 * @param title The document's title.
 * @param main The `<main>` element.
 * @param formTargets Origins its forms may be sent to besides its own.
 * @returns The page, for {@linkcode pageResponse}.
 */
export function htmlPage(title: string, main: Html, formTargets: string[]): Page {
  return {
    body: html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <meta name="referrer" content="no-referrer">
          <title>${title}</title>
          <style nonce="NONCE">${STYLE}</style>
        </head>
        <body>
      ${main}
        </body>
      </html>
    `,
    formTargets,
  };
}

/**
 * The response for a page: a strict CSP (no script, a style nonce, forms only to the app and the redirect
 * target), no framing, no sniffing, no referrer, no caching.
 *
 * @param page The page.
 * @param status The status.
 * @returns The response.
 */
export async function pageResponse(page: Page, status = 200): Promise<Response> {
  const nonce = base64url(PLATFORM.randomBytes(16));
  const text = (await page.body).toString().replace('nonce="NONCE"', `nonce="${nonce}"`);
  const formAction = ["'self'", ...page.formTargets.map(cspSource)].join(" ");
  return new Response(text, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; ` +
        "frame-ancestors 'none'; base-uri 'none'",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cross-origin-opener-policy": "same-origin",
      "cache-control": "no-store",
    },
  });
}

/** An origin or scheme as a CSP source expression (nothing that could end the directive). */
function cspSource(origin: string): string {
  return origin.replace(/[;,\s'"]/g, "");
}
