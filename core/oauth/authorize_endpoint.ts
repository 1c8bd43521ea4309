/**
 * `GET /svc/oauth/authorize` shows the consent page to the signed-in user (or
 * sends a signed-out one to the app's sign-in with a way back);
 * `POST /svc/oauth/authorize` takes the decision and sends the user back to
 * the client with a code or `access_denied`. A request that is refused before
 * the user decides is sent back to the client only when the signed-in user
 * has consented to that client before; otherwise it is shown on a page, so
 * that nobody can use the endpoint as an open redirector to a redirect URI
 * they registered themselves (RFC 9700 §4.11.2).
 *
 * @module
 */
import { hashSecret, mintSecret } from "../contract/mod.ts";
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
  RedirectableError,
  redirectWith,
  UntrustedRedirectError,
} from "./authorization_request.ts";
import { consentPage, pageResponse, refusalPage, signInFirstPage } from "./consent_page.ts";
import { issuerOf, OAUTH_PATHS } from "./discovery.ts";
import { OAUTH_DEFAULTS } from "./oauth_config.ts";
import type { OAuthContext } from "./oauth_context.ts";
import { readForm } from "./form_body.ts";

/** The prefix of authorization codes. */
export const CODE_PREFIX = "svca_";

/**
 * Answers the authorization endpoint.
 *
 * @param req The request (GET or POST).
 * @param ctx The context.
 * @param origin The app's public origin.
 * @returns The page or the redirect.
 */
export async function authorizeEndpoint(req: Request, ctx: OAuthContext, origin: string): Promise<Response> {
  const issuer = issuerOf(origin);
  const resources = [origin + "/svc", origin + "/svc/mcp"];
  let input: URLSearchParams;
  if (req.method === "POST") {
    const form = await readForm(req);
    if (form === null) return await pageResponse(refusalPage("The form could not be read"), 400);
    input = form;
  } else {
    input = new URL(req.url).searchParams;
  }
  let request: AuthorizationRequest;
  try {
    request = await checkAuthorizationRequest(input, {
      clients: ctx.clients,
      scopes: ctx.scopes,
      resources,
      from: req,
    });
  } catch (error) {
    if (error instanceof UntrustedRedirectError) return await pageResponse(refusalPage(error.message), 400);
    if (error instanceof RedirectableError) {
      if (await consentedBefore(req, ctx, error.clientId)) {
        return redirect(redirectWith(error.redirectUri, errorOf(error), error.state, issuer));
      }
      return await pageResponse(
        refusalPage(`The client's request is not valid (${error.error}): ${error.message}`),
        400,
      );
    }
    throw error;
  }
  const user = await ctx.userOf(req);
  if (req.method !== "POST") {
    if (user === null) return signIn(ctx, origin, request);
    const csrf = await ctx.consent.issue(user, request.params, ctx.now());
    return await pageResponse(consentPage(request, csrf, OAUTH_PATHS.authorize, { user, scopes: ctx.scopeAbout }));
  }
  if (user === null) return await pageResponse(signInFirstPage(), 401);
  if (!await ctx.consent.check(input.get("csrf") ?? "", user, request.params, ctx.now())) {
    return await pageResponse(
      refusalPage("This form has expired or was not sent from this app's consent page; nothing was granted"),
      403,
    );
  }
  const decision = input.get("decision");
  if (decision === "deny") {
    const denied = { error: "access_denied", error_description: "The user denied the request" };
    return redirect(redirectWith(request.redirectUri, denied, request.state, issuer));
  }
  if (decision !== "allow") return await pageResponse(refusalPage("The form carried no decision"), 400);
  const granted = [...new Set(input.getAll("granted_scope"))];
  if (granted.some((s) => !request.scopes.includes(s))) {
    return await pageResponse(refusalPage("The form granted a scope the client did not ask for"), 400);
  }
  const code = mintSecret(CODE_PREFIX);
  const now = ctx.now();
  await ctx.storage.insertCode({
    hash: await hashSecret(code),
    clientId: request.client.clientId,
    userId: user,
    redirectUri: request.redirectUri,
    scopes: granted,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    expiresAt: now + OAUTH_DEFAULTS.codeTtlSeconds * 1000,
    usedAt: null,
    grantId: null,
  }, now);
  return redirect(redirectWith(request.redirectUri, { code }, request.state, issuer));
}

/**
 * Sends a signed-out user to the app's sign-in, with `return_to` set to this authorization request at the
 * app's own authorization URL: built from the checked parameters, never from anything else in the request.
 */
async function signIn(ctx: OAuthContext, origin: string, request: AuthorizationRequest): Promise<Response> {
  if (ctx.config.signInUrl === undefined) return await pageResponse(signInFirstPage(), 401);
  const back = new URL(origin + OAUTH_PATHS.authorize);
  for (const [name, value] of Object.entries(request.params)) back.searchParams.set(name, value);
  const signInUrl = new URL(ctx.config.signInUrl, origin);
  signInUrl.searchParams.set("return_to", back.href);
  return redirect(signInUrl.href);
}

/**
 * Whether a `return_to` given to the app's sign-in page leads back to the app's own authorization endpoint,
 * and nowhere else: what a sign-in page checks before it redirects there.
 *
 * @param returnTo The value the sign-in page received.
 * @param appOrigin The app's public origin (`https://app.example.com`).
 * @returns `true` only for `appOrigin/svc/oauth/authorize?…`.
 *
 * @example Check the way back after sign-in
 * ```ts
 * import { isOAuthReturnUrl } from "@svc/agent-access";
 * isOAuthReturnUrl("https://app.example.com/svc/oauth/authorize?client_id=x", "https://app.example.com"); // true
 * isOAuthReturnUrl("https://evil.example/svc/oauth/authorize", "https://app.example.com"); // false
 * ```
 */
export function isOAuthReturnUrl(returnTo: string, appOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    return false;
  }
  return url.origin === new URL(appOrigin).origin && url.pathname === OAUTH_PATHS.authorize &&
    !url.username && !url.password && url.hash === "";
}

/** Whether the request's signed-in user holds a live grant of the client: only then is its redirect URI trusted. */
async function consentedBefore(req: Request, ctx: OAuthContext, clientId: string): Promise<boolean> {
  const user = await ctx.userOf(req).catch(() => null);
  return user !== null && await ctx.storage.hasLiveGrant(user, clientId);
}

function errorOf(error: RedirectableError): Record<string, string> {
  return { error: error.error, error_description: error.message };
}

function redirect(location: string): Response {
  return new Response(null, {
    status: 302,
    headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}
