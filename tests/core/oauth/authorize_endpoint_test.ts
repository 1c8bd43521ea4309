import { test } from "node:test";
import assert from "node:assert/strict";
import { isOAuthReturnUrl } from "../../../mod.ts";
import {
  authorizeParams,
  consent,
  getAuthorize,
  hiddenFields,
  type OAuthApp,
  oauthApp,
  ORIGIN,
  pkce,
  postConsent,
  REDIRECT,
  register,
  tokenRequest,
} from "../../fixtures/oauth_app.ts";

async function withClient(
  check: (ctx: { app: OAuthApp; clientId: string; params: Record<string, string> }) => Promise<void>,
  config = {},
): Promise<void> {
  const app = await oauthApp(config);
  try {
    const clientId = await register(app.handle, [REDIRECT, "https://client.example/cb"], 'Notes <Helper> & "Co"');
    await check({ app, clientId, params: authorizeParams(clientId, (await pkce()).challenge) });
  } finally {
    await app.close();
  }
}

/** Alice consents to the client and the client exchanges its code: she holds a live grant of it. */
async function consentedBy(app: OAuthApp, clientId: string, user = "alice"): Promise<void> {
  const { verifier, challenge } = await pkce();
  const back = await consent(app.handle, user, authorizeParams(clientId, challenge));
  const res = await tokenRequest(app.handle, {
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  assert.equal(res.status, 200);
}

async function codeCount(app: OAuthApp): Promise<number> {
  return Number((await app.storage.db.execute("SELECT COUNT(*) AS n FROM app_oauth_codes")).rows[0].n);
}

test("the consent page names the client (escaped) and its redirect host, with one checked box per scope", async () => {
  await withClient(async ({ app, params }) => {
    const res = await getAuthorize(app.handle, "alice", params);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.ok(page.includes("Notes &lt;Helper&gt; &amp; &quot;Co&quot;"), "the self-declared name is escaped");
    assert.ok(!page.includes("<Helper>"));
    assert.ok(page.includes("<strong>127.0.0.1:5555</strong>"), "the redirect host is named");
    assert.ok(page.includes("the name is not verified"));
    const boxes = [
      ...page.matchAll(/<input type="checkbox" id="(scope-\d)" name="granted_scope" value="([^"]+)" checked>/g),
    ];
    assert.deepEqual(boxes.map((m) => m[2]), ["notes:read", "notes:write"]);
    for (const [, id, scope] of boxes) assert.ok(page.includes(`<label for="${id}">${scope}</label>`), "labelled");
    assert.ok(page.includes('<button type="submit" name="decision" value="deny">Deny</button>'));
    assert.ok(page.includes('<button type="submit" name="decision" value="allow">Allow</button>'));
    assert.ok(!/<script/i.test(page), "no script");
    assert.ok(page.includes('<html lang="en">'));
  });
});

test("the consent page cannot be framed and allows no script (strict CSP, forms only to itself and the redirect)", async () => {
  await withClient(async ({ app, params }) => {
    const res = await getAuthorize(app.handle, "alice", params);
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:5555;/);
    assert.match(csp, /style-src 'nonce-[A-Za-z0-9_-]{22}'/);
    assert.doesNotMatch(csp, /script-src|unsafe/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const nonce = /nonce-([A-Za-z0-9_-]+)/.exec(csp)![1];
    assert.ok((await res.text()).includes(`<style nonce="${nonce}">`));
  });
});

test("Allow sends the user back with a code, the state and the issuer (RFC 9207)", async () => {
  await withClient(async ({ app, params }) => {
    const page = await (await getAuthorize(app.handle, "alice", params)).text();
    const res = await postConsent(app.handle, "alice", hiddenFields(page), "allow", ["notes:read"]);
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.match(back.searchParams.get("code")!, /^svca_/);
    assert.equal(back.searchParams.get("state"), "st-123");
    assert.equal(back.searchParams.get("iss"), `${ORIGIN}/svc`);
  });
});

test("Deny sends the user back with access_denied and stores nothing", async () => {
  await withClient(async ({ app, params }) => {
    const page = await (await getAuthorize(app.handle, "alice", params)).text();
    const res = await postConsent(app.handle, "alice", hiddenFields(page), "deny", ["notes:read"]);
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(back.searchParams.get("state"), "st-123");
    assert.equal(back.searchParams.get("iss"), `${ORIGIN}/svc`);
    assert.equal(back.searchParams.get("code"), null);
    assert.equal(await codeCount(app), 0);
  });
});

test("consent CSRF: a post without the token, with another user's, or with changed parameters grants nothing", async () => {
  await withClient(async ({ app, params }) => {
    const fields = hiddenFields(await (await getAuthorize(app.handle, "alice", params)).text());
    const { csrf: _, ...noToken } = fields;
    const attempts: [string, Record<string, string>][] = [
      ["alice", noToken],
      ["alice", { ...fields, csrf: "1700000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }],
      ["mallory", fields],
      ["alice", { ...fields, scope: "notes:read notes:write admin" }],
      ["alice", { ...fields, redirect_uri: "https://client.example/cb" }],
      ["alice", { ...fields, code_challenge: (await pkce()).challenge }],
    ];
    for (const [user, form] of attempts) {
      const res = await postConsent(app.handle, user, form, "allow", ["notes:read"]);
      assert.equal(res.status, 403, `${user} ${JSON.stringify(form).slice(0, 80)}`);
      assert.equal(res.headers.get("location"), null);
    }
    assert.equal(await codeCount(app), 0);
  });
});

test("a consent form older than ten minutes is refused", async () => {
  await withClient(async ({ app, params }) => {
    const fields = hiddenFields(await (await getAuthorize(app.handle, "alice", params)).text());
    app.advance(10 * 60_000 + 1000);
    assert.equal((await postConsent(app.handle, "alice", fields, "allow", [])).status, 403);
  });
});

test("a granted scope the client did not ask for is refused", async () => {
  await withClient(async ({ app, params }) => {
    const fields = hiddenFields(await (await getAuthorize(app.handle, "alice", params)).text());
    const res = await postConsent(app.handle, "alice", fields, "allow", ["notes:read", "admin"]);
    assert.equal(res.status, 400);
    assert.equal(await codeCount(app), 0);
  });
});

test("redirect-URI tricks are shown to the user, never redirected to: prefix, suffix, fragment, other host", async () => {
  await withClient(async ({ app, params }) => {
    for (
      const uri of [
        REDIRECT + "/evil",
        REDIRECT.slice(0, -1),
        REDIRECT + "#x",
        REDIRECT + "?x=1",
        "http://127.0.0.1:5556/callback",
        "https://evil.example/callback",
        "HTTP://127.0.0.1:5555/callback",
      ]
    ) {
      const res = await getAuthorize(app.handle, "alice", { ...params, redirect_uri: uri });
      assert.equal(res.status, 400, uri);
      assert.equal(res.headers.get("location"), null, uri);
      assert.match(await res.text(), /redirect_uri is not one the client registered/);
    }
    const unknown = await getAuthorize(app.handle, "alice", { ...params, client_id: "svcc_nobody" });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.headers.get("location"), null);
  });
});

test("PKCE downgrade: plain, a missing method or a missing challenge is refused by error redirect", async () => {
  await withClient(async ({ app, clientId, params }) => {
    await consentedBy(app, clientId);
    const { code_challenge: _, ...noChallenge } = params;
    const { code_challenge_method: __, ...noMethod } = params;
    for (const bad of [{ ...params, code_challenge_method: "plain" }, noChallenge, noMethod]) {
      const res = await getAuthorize(app.handle, "alice", bad);
      assert.equal(res.status, 302);
      const back = new URL(res.headers.get("location")!);
      assert.equal(back.origin + back.pathname, REDIRECT);
      assert.equal(back.searchParams.get("error"), "invalid_request");
      assert.equal(back.searchParams.get("iss"), `${ORIGIN}/svc`);
    }
  });
});

test("other bad requests of a client the user consented to come back as the RFC's error redirects", async () => {
  await withClient(async ({ app, clientId, params }) => {
    await consentedBy(app, clientId);
    const codes = await codeCount(app);
    const cases: [Record<string, string>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "notes:read rocket:launch" }, "invalid_scope"],
      [{ resource: "https://elsewhere.example/svc/mcp" }, "invalid_target"],
      [{ resource: `${ORIGIN}/svc/keys` }, "invalid_target"],
    ];
    for (const [change, error] of cases) {
      const res = await getAuthorize(app.handle, "alice", { ...params, ...change });
      assert.equal(new URL(res.headers.get("location")!).searchParams.get("error"), error, JSON.stringify(change));
    }
    assert.equal(await codeCount(app), codes);
  });
});

test("a bad request of a client the user has not consented to is shown on a page, never redirected", async () => {
  // RFC 9700 §4.11.2: anyone may register https://evil.example/login; an error redirect to it would make the
  // authorization endpoint an open redirector, reachable signed out with no click.
  const app = await oauthApp({ signInUrl: "/login" });
  try {
    const evil = await register(app.handle, ["https://evil.example/login"], "Evil");
    const params = authorizeParams(evil, (await pkce()).challenge, { redirect_uri: "https://evil.example/login" });
    const cases: Record<string, string>[] = [
      { response_type: "token" },
      { code_challenge_method: "plain" },
      { scope: "rocket:launch" },
      { resource: "https://elsewhere.example/svc/mcp" },
    ];
    const other = await register(app.handle);
    await consentedBy(app, other); // alice consented to another client: not to this one
    for (const user of [null, "alice"]) {
      for (const change of cases) {
        const res = await getAuthorize(app.handle, user, { ...params, ...change });
        const what = `${user} ${JSON.stringify(change)}`;
        assert.equal(res.status, 400, what);
        assert.equal(res.headers.get("location"), null, what);
        assert.match(res.headers.get("content-type")!, /^text\/html/, what);
        assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/, what);
        const page = await res.text();
        assert.match(page, /<html lang="en">/, what);
        assert.match(page, /<h1>This authorization request cannot be completed<\/h1>/, what);
        assert.doesNotMatch(page, /evil\.example/, what);
      }
    }
    assert.equal(await codeCount(app), 1, "only the consented client's code");
  } finally {
    await app.close();
  }
});

test("a signed-out user is sent to signInUrl with a return_to that is the app's own authorize URL", async () => {
  await withClient(async ({ app, params }) => {
    const res = await getAuthorize(app.handle, null, { ...params, state: "https://evil.example/" });
    assert.equal(res.status, 302);
    const signIn = new URL(res.headers.get("location")!);
    assert.equal(signIn.origin + signIn.pathname, `${ORIGIN}/login`);
    assert.equal(signIn.searchParams.get("next"), "keep", "the sign-in URL's own query is kept");
    const back = new URL(signIn.searchParams.get("return_to")!);
    assert.equal(back.origin + back.pathname, `${ORIGIN}/svc/oauth/authorize`);
    assert.equal(back.searchParams.get("client_id"), params.client_id);
    assert.equal(back.searchParams.get("state"), "https://evil.example/");
    assert.ok(isOAuthReturnUrl(back.href, ORIGIN));
  }, { signInUrl: "/login?next=keep" });
});

test("a signed-out user with an untrusted redirect_uri is not sent to sign in (no open redirect through it)", async () => {
  await withClient(async ({ app, params }) => {
    const res = await getAuthorize(app.handle, null, { ...params, redirect_uri: "https://evil.example/cb" });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("location"), null);
  }, { signInUrl: "/login" });
});

test("isOAuthReturnUrl accepts only the app's own authorize URL", () => {
  const good = `${ORIGIN}/svc/oauth/authorize?client_id=x`;
  assert.equal(isOAuthReturnUrl(good, ORIGIN), true);
  for (
    const bad of [
      "https://evil.example/svc/oauth/authorize",
      `${ORIGIN}.evil.example/svc/oauth/authorize`,
      `${ORIGIN}/svc/oauth/authorize/../../logout`,
      `${ORIGIN}/elsewhere`,
      "//evil.example/svc/oauth/authorize",
      "/svc/oauth/authorize",
      "javascript:alert(1)",
      `http://user:pw@app.test/svc/oauth/authorize`,
      `${ORIGIN}/svc/oauth/authorize#frag`,
    ]
  ) {
    assert.equal(isOAuthReturnUrl(bad, ORIGIN), false, bad);
  }
});

test("without signInUrl a signed-out user gets a page asking to sign in, and a signed-out POST grants nothing", async () => {
  await withClient(async ({ app, params }) => {
    const res = await getAuthorize(app.handle, null, params);
    assert.equal(res.status, 401);
    assert.match(await res.text(), /Sign in first/);
    const fields = hiddenFields(await (await getAuthorize(app.handle, "alice", params)).text());
    assert.equal((await postConsent(app.handle, null, fields, "allow", [])).status, 401);
    assert.equal(await codeCount(app), 0);
  });
});

test("no scope asks for all of the app's scopes; a repeated parameter is refused", async () => {
  await withClient(async ({ app, params }) => {
    const { scope: _, ...noScope } = params;
    const page = await (await getAuthorize(app.handle, "alice", noScope)).text();
    assert.equal([...page.matchAll(/type="checkbox"/g)].length, 3);
    const url = `${ORIGIN}/svc/oauth/authorize?${new URLSearchParams(params)}&client_id=again`;
    const dup = await app.handle(new Request(url, { headers: { "x-user": "alice" } }));
    assert.equal(dup.status, 400);
    assert.equal(dup.headers.get("location"), null);
  });
});
