// Every /svc and /v1 route × every credential case, generated from the route
// tables (the /svc table of an app with `oauth`, so OAuth's rows too). A route added to a table without an entry in
// ROUTES below fails the "covers every route" test, so no route ships unattacked. The dashboard's rows
// (HTML for operators) are walked too: signed out, without the CSRF token, as a viewer.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cloudRoutes } from "../../cloud/cloud_routes.ts";
import { rotateSdkSecret } from "../../cloud/projects/projects.ts";
import { svcRouteTable } from "../fixtures/svc_table.ts";
import type { Svc } from "../../mod.ts";
import { asUser, BASE, mint, notesSvc, SCOPES } from "../fixtures/notes_svc.ts";
import { type Answer, call, startTestCloud, TEST_METRICS_TOKEN, type TestCloud } from "../fixtures/test_cloud.ts";
import { CREDENTIAL_CASES, type Credentials, type RouteAuth } from "../fixtures/credentials.ts";
import { OAUTH_REDIRECT, ROUTES, setOAuthClientId, setThrowawayKeyId } from "../fixtures/route_samples.ts";
import { DASHBOARD_ROUTES } from "../../cloud/dashboard/pages.ts";
import { type FormClient, formClient, signedIn } from "../cloud/dashboard/form_client.ts";

const v1Table = cloudRoutes.map((r) => ({ id: `${r.method} ${r.path}`, auth: r.auth as RouteAuth }));
const svcTable = svcRouteTable({ oauth: true })
  .map((r) => ({ id: `${r.method} ${r.path}`, auth: r.auth as RouteAuth }));

test("the auth matrix covers every route of both tables, with the auth each table declares", () => {
  const tables = [...v1Table, ...svcTable];
  assert.deepEqual(tables.map((r) => r.id).sort(), Object.keys(ROUTES).sort(), "update ROUTES for a new route");
  for (const route of tables) assert.equal(route.auth, ROUTES[route.id].auth, route.id);
});

/** Sends one case and checks the answer; returns the answer for comparisons. */
async function expectOutcome(
  send: Send,
  route: { id: string; auth: RouteAuth },
  creds: Credentials,
  caseName: string,
): Promise<Answer> {
  const [method, pattern] = route.id.split(" ");
  const sample = ROUTES[route.id];
  const { path, body, headers: sampleHeaders } = sample.request();
  const url = path.startsWith("/") ? path : pattern + path;
  const credentialCase = CREDENTIAL_CASES.find((c) => c.name === caseName)!;
  const { headers, expect } = credentialCase.send(route.auth, creds);
  const res = await send(method, url, { ...sampleHeaders, ...headers }, body);
  const json = "application/json";
  const accepted = sample.contentType === undefined ? json : sample.contentType;
  assert.equal(res.headers.get("content-type"), expect === "accepted" ? accepted : json);
  if (expect === "accepted") {
    assert.equal(res.status, sample.status, `${route.id} with ${caseName}: ${JSON.stringify(res.body)}`);
  } else {
    assert.equal(res.status, 401, `${route.id} with ${caseName}: ${JSON.stringify(res.body)}`);
    // /svc/mcp answers its 401 as a JSON-RPC error holding the contract's error in error.data.
    const error = route.id === "POST /svc/mcp" ? res.body.error.data : res.body.error;
    if (route.id !== "POST /svc/mcp") assert.equal(res.body.ok, false);
    assert.equal(error.code, "UNAUTHORIZED");
    assert.equal(typeof error.message, "string");
  }
  return res;
}

describe("the /v1 auth matrix", () => {
  let t: TestCloud;
  const creds = {} as Credentials;
  before(async () => {
    t = await startTestCloud();
    const other = await t.newProject("other");
    creds.projectId = t.project.id;
    creds.rotatedSecret = t.project.secret;
    creds.sdkSecret = t.project.secret = (await rotateSdkSecret(t.storage, t.project.id))!;
    creds.otherSecret = other.secret;
    creds.agentKey = (await t.mintKey("bob")).key;
    const revoked = await t.mintKey("bob");
    await t.sdk("DELETE", `/v1/sdk/keys/${revoked.id}`);
    creds.revokedKey = revoked.key;
    creds.otherProjectKey = (await t.mintKey("bob", {}, other)).key;
    creds.otherProjectKeyIsValid = true;
    creds.metricsToken = TEST_METRICS_TOKEN;
    setThrowawayKeyId((await t.mintKey("erin")).id);
  });
  after(() => t.close());
  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    call(t.cloud, method, path, { headers, body });

  defineMatrix(v1Table, send, creds, (res) => {
    if (res.status === 401) assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="svc"');
  });
});

describe("the /svc auth matrix", () => {
  let svc: Svc;
  let otherApp: Svc;
  const creds = {} as Credentials;
  before(async () => {
    svc = notesSvc({ oauth: { signInUrl: "/login" } });
    otherApp = notesSvc();
    creds.projectId = "prj_01J00000000000000000000000";
    creds.sdkSecret = creds.rotatedSecret = creds.otherSecret = "svcs_0123456789abcdefghijklmnopqrstuvwxyzAB";
    creds.agentKey = (await mint(svc, "alice", [...SCOPES])).key;
    const revoked = await mint(svc, "alice", [...SCOPES]);
    await asUser(svc, "alice", "DELETE", `/svc/keys/${revoked.id}`);
    creds.revokedKey = revoked.key;
    creds.otherProjectKey = (await mint(otherApp, "alice", [...SCOPES])).key;
    creds.otherProjectKeyIsValid = false;
    setThrowawayKeyId((await mint(svc, "alice", [])).id);
    const registration = { redirect_uris: [OAUTH_REDIRECT], client_name: "Matrix" };
    const registered = await svc.handle(
      new Request(`${BASE}/svc/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(registration),
      }),
    );
    setOAuthClientId((await registered.json()).client_id);
  });
  after(async () => {
    await svc.close();
    await otherApp.close();
  });
  const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    if (body !== undefined) headers = { "content-type": "application/json", ...headers };
    const res = await svc.handle(
      new Request(BASE + path, { method, headers, body: typeof body === "string" ? body : JSON.stringify(body) }),
    );
    // A page or a redirect (OAuth's authorization endpoint) has no JSON body to compare.
    const json = res.headers.get("content-type")?.startsWith("application/json");
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: json && text ? JSON.parse(text) : null };
  };

  defineMatrix(svcTable, send, creds);
});

type Send = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<Answer>;

/** One group per route: every credential case, unknown versus revoked, and the credential before the body. */
function defineMatrix(
  table: { id: string; auth: RouteAuth }[],
  send: Send,
  creds: Credentials,
  alsoCheck: (res: Answer) => void = () => {},
): void {
  for (const route of table) {
    describe(route.id, () => {
      for (const { name } of CREDENTIAL_CASES) {
        test(`answers ${name} as the matrix expects`, async () => {
          alsoCheck(await expectOutcome(send, route, creds, name));
        });
      }
      test("gives an unknown credential no reason, and a revoked one the same code, its reason told to its holder only", async () => {
        const unknown = await expectOutcome(send, route, creds, "a well-formed but unknown credential");
        const revoked = await expectOutcome(send, route, creds, "a revoked credential");
        type Refusal = { error: { code: string; details?: { reason?: string; at?: string } } };
        const [u, r] = [unknown.body as Refusal, revoked.body as Refusal];
        if (u?.error === undefined) return assert.deepEqual(revoked.body, unknown.body); // a route without credentials
        assert.equal(r.error.code, u.error.code);
        assert.equal(u.error.details, undefined, "an unknown credential: no reason");
        // CONTRACT: a key that exists but no longer works says so (details.reason), to whoever holds the key.
        if (r.error.details !== undefined) assert.deepEqual(Object.keys(r.error.details).sort(), ["at", "reason"]);
        if (r.error.details !== undefined) assert.equal(r.error.details.reason, "revoked");
      });
      // A public route has no credential to check (OAuth's carry theirs in the body, checked in their own tests).
      if (/^(POST|PUT)/.test(route.id) && route.auth !== "none") {
        test("checks the credential before the body", async () => {
          const [method, path] = route.id.split(" ");
          assert.equal((await send(method, path.replace(/:\w+/, "x"), {}, "{")).status, 401);
        });
      }
    });
  }
}

describe("the dashboard auth matrix", () => {
  let t: TestCloud;
  let admin: FormClient;
  let viewer: FormClient;
  before(async () => {
    t = await startTestCloud();
    admin = await signedIn(t, "matrix-admin@example.com");
    viewer = await signedIn(t, "matrix-viewer@example.com", "viewer");
  });
  after(() => t.close());
  const pathOf = (pattern: string) => pattern.replace(":projectId", t.project.id).replace(/:\w+/g, "x");
  const signedIns = DASHBOARD_ROUTES.filter((r) => r.auth === "operator" || r.auth === "admin");

  test("every dashboard row has an auth kind of the dashboard, answers a media type, and stays out of /v1", () => {
    for (const row of DASHBOARD_ROUTES) {
      const id = `${row.method} ${row.path}`;
      assert.ok(["none", "visitor", "operator", "admin"].includes(row.auth), id);
      assert.ok(row.mediaType, id);
      assert.ok(row.path.startsWith("/dashboard"), id);
    }
    assert.ok(signedIns.length > 30, "the signed-in pages and posts are rows");
    assert.ok(cloudRoutes.every((r) => !r.path.startsWith("/dashboard")));
  });

  for (const row of DASHBOARD_ROUTES) {
    const id = `${row.method} ${row.path}`;
    describe(id, () => {
      if (row.auth === "none" || row.auth === "visitor") {
        test("is answered signed out", async () => {
          const res = await formClient(t.cloud.handle).get(pathOf(row.path));
          assert.notEqual(res.location, "/dashboard/sign-in", id);
          assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'self'/);
        });
        return;
      }
      test("signed out: redirects to sign-in", async () => {
        const browser = formClient(t.cloud.handle);
        const res = row.method === "GET"
          ? await browser.get(pathOf(row.path))
          : await browser.post(pathOf(row.path), {}, { csrf: "x" });
        assert.equal(res.status, 303, id);
        assert.equal(res.location, "/dashboard/sign-in", id);
        assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'self'/);
      });
      if (row.method !== "POST") return;
      test("signed in, without the CSRF token or from another site: 403", async () => {
        await admin.get("/dashboard/projects");
        assert.equal((await admin.post(pathOf(row.path), {}, { csrf: null })).status, 403, id);
        const forged = await admin.post(pathOf(row.path), {}, { headers: { origin: "https://evil.example" } });
        assert.equal(forged.status, 403, id);
      });
      if (row.auth !== "admin") return;
      test("a viewer's post with its CSRF token: 403", async () => {
        await viewer.get("/dashboard/projects");
        const res = await viewer.post(pathOf(row.path), {});
        assert.equal(res.status, 403, id);
        assert.match(res.text, /Viewers can read but not change anything/);
      });
    });
  }
});
