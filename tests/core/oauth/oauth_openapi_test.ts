// OAuth's rows in GET /svc/openapi.json: a whole authorization (registration, consent, code exchange, refresh,
// revocation) and its main refusals driven through an app's handle, each answer checked with Ajv against the document.
import { test } from "node:test";
import assert from "node:assert/strict";
import { notesSvc } from "../../fixtures/notes_svc.ts";
import { answerChecker } from "../../fixtures/openapi_answers.ts";
import {
  authorizeParams,
  getAuthorize,
  hiddenFields,
  ORIGIN,
  pkce,
  postConsent,
  REDIRECT,
  tokenRequest,
} from "../../fixtures/oauth_app.ts";
import { svcRouteTable } from "../../fixtures/svc_table.ts";

test("every OAuth route's answers, successes and refusals, match the document the app serves", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const checker = answerChecker(await (await svc.handle(new Request(`${ORIGIN}/svc/openapi.json`))).json());
    const checked = async (method: string, path: string, res: Response): Promise<Response> => {
      const text = await res.clone().text();
      const json = res.headers.get("content-type")?.startsWith("application/json");
      checker.check(method, path, res.status, text === "" ? null : json ? JSON.parse(text) : text);
      return res;
    };
    const handle = (req: Request) => svc.handle(req);
    for (const route of svcRouteTable({ oauth: true }).filter((r) => r.path.startsWith("/.well-known/"))) {
      await checked("GET", route.path, await handle(new Request(ORIGIN + route.path)));
    }
    const register = (body: unknown) =>
      handle(
        new Request(`${ORIGIN}/svc/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    const registered = await checked("POST", "/svc/oauth/register", await register({ redirect_uris: [REDIRECT] }));
    assert.equal(registered.status, 201);
    assert.equal((await checked("POST", "/svc/oauth/register", await register({}))).status, 400);
    const clientId = (await registered.json()).client_id;
    const { verifier, challenge } = await pkce();
    const params = authorizeParams(clientId, challenge);
    const authorize = "/svc/oauth/authorize";
    assert.equal((await checked("GET", authorize, await getAuthorize(handle, null, params))).status, 401);
    assert.equal((await checked("GET", authorize, await getAuthorize(handle, "alice", {}))).status, 400);
    const page = await checked("GET", authorize, await getAuthorize(handle, "alice", params));
    assert.equal(page.status, 200);
    const fields = hiddenFields(await page.text());
    const forged = await postConsent(handle, "alice", { ...fields, csrf: "x" }, "allow", ["notes:read"]);
    assert.equal((await checked("POST", authorize, forged)).status, 403);
    const allowed = await checked(
      "POST",
      authorize,
      await postConsent(handle, "alice", fields, "allow", ["notes:read"]),
    );
    assert.equal(allowed.status, 302);
    const code = new URL(allowed.headers.get("location")!).searchParams.get("code")!;
    const exchange = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier };
    const tokens = await checked(
      "POST",
      "/svc/oauth/token",
      await tokenRequest(handle, { ...exchange, client_id: clientId }),
    );
    assert.equal(tokens.status, 200);
    const { refresh_token } = await tokens.json();
    const unknown = await tokenRequest(handle, { ...exchange, client_id: "nobody" });
    assert.equal((await checked("POST", "/svc/oauth/token", unknown)).status, 401);
    const replayed = await tokenRequest(handle, { ...exchange, client_id: clientId });
    assert.equal((await checked("POST", "/svc/oauth/token", replayed)).status, 400);
    const revoke = await tokenRequest(handle, { token: refresh_token, client_id: clientId }, "/svc/oauth/revoke");
    assert.equal((await checked("POST", "/svc/oauth/revoke", revoke)).status, 200);
    const noToken = await tokenRequest(handle, { client_id: clientId }, "/svc/oauth/revoke");
    assert.equal((await checked("POST", "/svc/oauth/revoke", noToken)).status, 400);
  } finally {
    await svc.close();
  }
});
