import { test } from "node:test";
import assert from "node:assert/strict";
import { createNotesApp, NOTES_SCOPES } from "../../examples/notes_app.ts";
import { assertConformance, checkSvcConformance } from "../../testing/mod.ts";

test("the example notes app walks through mint, run, scope refusal, schema refusal and revoke", async () => {
  const app = await createNotesApp({ db: ":memory:" });
  const call = (path: string, init: RequestInit = {}) => app.fetch(new Request(`http://127.0.0.1${path}`, init));
  const json = { "content-type": "application/json" };
  try {
    const minted = await call("/svc/keys", {
      method: "POST",
      headers: { ...json, cookie: "session=alice" },
      body: JSON.stringify({ name: "agent", scopes: ["notes:read", "notes:write"] }),
    });
    assert.equal(minted.status, 201);
    const { key, id } = await minted.json();
    const agent = { ...json, authorization: `Bearer ${key}` };
    const runIntent = (intent: string, payload?: unknown) =>
      call("/svc/agent/run", { method: "POST", headers: agent, body: JSON.stringify({ intent, payload }) });

    const created = await runIntent("notes.create", { title: "Buy milk" });
    assert.equal(created.status, 200);
    const listed = await (await runIntent("notes.list")).json();
    assert.deepEqual(listed.result.notes.map((n: { title: string }) => n.title), ["Buy milk"]);
    assert.equal((await runIntent("notes.delete", { id: crypto.randomUUID() })).status, 403);
    assert.equal((await runIntent("notes.create", {})).status, 400);
    assert.equal(
      (await call(`/svc/keys/${id}`, { method: "DELETE", headers: { cookie: "session=alice" } })).status,
      200,
    );
    assert.equal((await runIntent("notes.list")).status, 401);
    assert.equal((await call("/")).status, 200, "the app's own route is still served");
    const home = await call("/", { headers: { cookie: "session=alice" } });
    const page = await home.text();
    const runs = page.slice(page.indexOf('<ol id="activity">'));
    assert.match(page, /Your agent keys[\s\S]*<li>agent \(notes:read, notes:write\) — revoked<\/li>/);
    assert.deepEqual(
      [...runs.matchAll(/: (notes\.\w+) over http: <strong>(\w+)<\/strong>/g)].map((m) => `${m[1]} ${m[2]}`),
      ["notes.create invalid", "notes.delete refused", "notes.list ok", "notes.create ok"],
      "what the agent did, newest first, under the user's keys",
    );
    assert.ok(!page.includes("Buy milk"), "never a payload");
  } finally {
    await app.close();
  }
});

test("the example notes app passes the conformance kit, running only notes.list for real", async () => {
  const app = await createNotesApp({ db: ":memory:" });
  try {
    const report = await checkSvcConformance(app.fetch, {
      scopes: NOTES_SCOPES,
      signIn: { cookie: "session=conformance" },
      run: { "notes.list": {} },
    });
    assertConformance(report);
    assert.deepEqual(report.intents.map((i) => i.intent), [
      "notes.create",
      "notes.list",
      "notes.delete",
      "notes.delete_all",
    ]);
    const keys = await app.fetch(
      new Request("http://127.0.0.1/svc/keys", { headers: { cookie: "session=conformance" } }),
    );
    const active = (await keys.json()).keys.filter((k: { revokedAt: string | null }) => k.revokedAt === null);
    assert.deepEqual(active, [], "the kit revokes every key it minted");
  } finally {
    await app.close();
  }
});

test("the example app turns OAuth on: a signed-out user goes through its demo sign-in and back to the consent", async () => {
  const app = await createNotesApp({ db: ":memory:" });
  const origin = "http://127.0.0.1";
  const call = (path: string, init: RequestInit = {}) => app.fetch(new Request(`${origin}${path}`, init));
  try {
    const registered = await call("/svc/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Claude", redirect_uris: ["http://127.0.0.1:5555/callback"] }),
    });
    const { client_id: clientId } = await registered.json();
    const authorize = `/svc/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:5555/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      scope: "notes:read",
      state: "s1",
      resource: `${origin}/svc/mcp`,
    })}`;
    const signedOut = await call(authorize);
    assert.equal(signedOut.status, 302);
    const login = new URL(signedOut.headers.get("location")!);
    assert.equal(login.pathname, "/login");
    const returnTo = login.searchParams.get("return_to")!;

    const page = await call(login.pathname + login.search);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<label for="user">Name<\/label>/);
    const form = (user: string, back: string) =>
      call("/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ user, return_to: back }),
      });
    const signedIn = await form("alice", returnTo);
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get("location"), returnTo);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0];
    assert.equal(cookie, "session=alice");
    const consent = await app.fetch(new Request(returnTo, { headers: { cookie } }));
    assert.equal(consent.status, 200);
    assert.match(await consent.text(), /Claude/);

    // The sign-in goes back only to the app's own authorization URL: never to another site.
    assert.equal((await form("alice", "https://evil.example/svc/oauth/authorize")).headers.get("location"), "/");
    assert.equal((await form("<script>", returnTo)).status, 400);
  } finally {
    await app.close();
  }
});
