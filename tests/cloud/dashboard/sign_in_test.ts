// Signing in to the dashboard, through handle() of a real cloud on libSQL:
// the setup link, passwords, slowing down failures, sessions and their expiry,
// CSRF, roles, security headers and the second factor.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { createSetupLink } from "../../../cloud/operators/setup_link.ts";
import { totpCode } from "../../../cloud/operators/second_factor.ts";
import { type FormClient, formClient, signedIn, testAddress } from "./form_client.ts";
import { createOperator, OPERATOR_PASSWORD } from "./operator_fixture.ts";

let clock = Date.parse("2025-06-01T12:00:00.000Z");
const MINUTE = 60_000;
/** One TOTP time step. */
const STEP = 30_000;

describe("dashboard sign-in", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud({
      dashboard: {
        now: () => clock,
        clientAddress: testAddress,
        sessionIdleMs: 30 * MINUTE,
        sessionMaxMs: 12 * 60 * MINUTE,
      },
    });
  });
  after(() => t.close());

  /** Signs in with the operator fixture's password and this code; the answer's status. */
  async function signIn(email: string, code: string): Promise<number> {
    const b = formClient(t.cloud.handle);
    await b.get("/dashboard/sign-in");
    return (await b.post("/dashboard/sign-in", { email, password: OPERATOR_PASSWORD, code })).status;
  }

  /** Turns two-factor sign-in on for a signed-in operator; its secret. */
  async function turnOnTotp(browser: FormClient): Promise<string> {
    await browser.get("/dashboard/account");
    const start = await browser.post("/dashboard/account/totp/start", {});
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(start.text)![1];
    const on = await browser.post("/dashboard/account/totp/confirm", { secret, code: totpCode(secret, clock) });
    assert.equal(on.status, 200);
    return secret;
  }

  test("a setup link creates the first admin once, and is refused after", async () => {
    const link = await createSetupLink(t.storage, clock);
    assert.ok(link?.startsWith("/dashboard/setup?token=svcu_"));
    const browser = formClient(t.cloud.handle);
    assert.equal((await browser.get(link!)).status, 200);
    const weak = await browser.post(link!, { email: "first@example.com", password: "short" });
    assert.equal(weak.status, 400);
    assert.match(weak.text, /at least 12 characters/);
    const created = await browser.post(link!, { email: "first@example.com", password: OPERATOR_PASSWORD });
    assert.equal(created.status, 303);
    assert.equal((await browser.get("/dashboard/projects")).status, 200, "the new admin is signed in");

    const other = formClient(t.cloud.handle);
    assert.equal((await other.get(link!)).status, 410);
    const again = await other.post(link!, { email: "second@example.com", password: OPERATOR_PASSWORD }, {
      csrf: null,
    });
    assert.equal(again.status, 403);
    assert.equal(await createSetupLink(t.storage, clock), null, "no setup link once an operator exists");
    assert.equal((await t.storage.audit.listAudit({ action: "operator.setup", limit: 5, offset: 0 })).total, 1);
  });

  test("nothing of a project is visible signed out: every page redirects to sign-in", async () => {
    const browser = formClient(t.cloud.handle);
    for (const path of ["/dashboard", "/dashboard/projects", `/dashboard/projects/${t.project.id}/keys`]) {
      const res = await browser.get(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.location, "/dashboard/sign-in");
      assert.doesNotMatch(res.text, new RegExp(t.project.id));
    }
    const post = await browser.post("/dashboard/projects", { name: "sneaky" }, { csrf: "x" });
    assert.equal(post.status, 303);
    assert.equal((await t.storage.projects.listProjects()).some((p) => p.name === "sneaky"), false);
  });

  test("a wrong password is refused and recorded without the password", async () => {
    await createOperator(t.storage, "wrong@example.com");
    const browser = formClient(t.cloud.handle);
    await browser.get("/dashboard/sign-in");
    const res = await browser.post("/dashboard/sign-in", { email: "wrong@example.com", password: "not the password" });
    assert.equal(res.status, 401);
    assert.match(res.text, /Wrong email, password or code/);
    assert.equal(browser.cookies.has("svc_session"), false);
    const failed = await t.storage.audit.listAudit({ action: "operator.sign_in_failed", limit: 10, offset: 0 });
    assert.ok(failed.entries.some((e) => e.actor === "wrong@example.com"));
    assert.doesNotMatch(JSON.stringify(failed.entries), /not the password/);
  });

  test("repeated failures slow down per account, even with the right password, until the wait is over", async () => {
    await createOperator(t.storage, "guessed@example.com");
    const browser = formClient(t.cloud.handle);
    await browser.get("/dashboard/sign-in");
    const attempt = (password: string) =>
      browser.post("/dashboard/sign-in", { email: "guessed@example.com", password });
    for (let i = 0; i < 5; i++) assert.equal((await attempt(`guess ${i}`)).status, 401, "five failures are free");
    const fromElsewhere = formClient(t.cloud.handle);
    await fromElsewhere.get("/dashboard/sign-in");
    const other = await fromElsewhere.post("/dashboard/sign-in", { email: "guessed@example.com", password: "x" });
    assert.equal(other.status, 429, "the account is slowed down from any address");
    const slowed = await attempt(OPERATOR_PASSWORD);
    assert.equal(slowed.status, 429);
    assert.ok(Number(slowed.headers.get("retry-after")) >= 1);
    clock += 2 * MINUTE;
    assert.equal((await attempt(OPERATOR_PASSWORD)).status, 303);
  });

  test("an email that is no operator's slows down like an operator's, from any address, so a wait tells nothing", async () => {
    const attempt = async () => {
      const browser = formClient(t.cloud.handle);
      await browser.get("/dashboard/sign-in");
      return (await browser.post("/dashboard/sign-in", { email: "nobody@example.com", password: "guess" })).status;
    };
    for (let i = 0; i < 5; i++) assert.equal(await attempt(), 401, "five failures are free");
    assert.equal(await attempt(), 429, "then the email waits, from a sixth address too");
    clock += 2 * MINUTE;
  });

  test("a session ends after the idle time and at the absolute limit, and at sign-out", async () => {
    const browser = await signedIn(t, "sessions@example.com");
    clock += 29 * MINUTE;
    assert.equal((await browser.get("/dashboard/projects")).status, 200);
    clock += 29 * MINUTE;
    assert.equal((await browser.get("/dashboard/projects")).status, 200, "each request resets the idle time");
    clock += 31 * MINUTE;
    assert.equal((await browser.get("/dashboard/projects")).location, "/dashboard/sign-in", "idle too long");

    const long = formClient(t.cloud.handle);
    await long.get("/dashboard/sign-in");
    await long.post("/dashboard/sign-in", { email: "sessions@example.com", password: OPERATOR_PASSWORD });
    for (let i = 0; i < 25; i++) {
      clock += 29 * MINUTE;
      const res = await long.get("/dashboard/projects");
      if (res.status !== 200) {
        assert.equal(res.location, "/dashboard/sign-in");
        assert.ok(i >= 23 && i <= 24, `the absolute limit of 12 hours ends the session (after ${i + 1} steps)`);
        break;
      }
      assert.ok(i < 24, "the session outlived its absolute limit");
    }

    const out = await signedIn(t, "signout@example.com");
    await out.get("/dashboard/projects");
    const token = out.cookies.get("svc_session")!;
    const res = await out.post("/dashboard/sign-out", {});
    assert.equal(res.location, "/dashboard/sign-in");
    const replay = formClient(t.cloud.handle);
    replay.cookies.set("svc_session", token);
    assert.equal((await replay.get("/dashboard/projects")).status, 303, "a signed-out token is dead");
  });

  test("sets the session cookie HttpOnly, SameSite=Strict, and Secure behind https", async () => {
    await createOperator(t.storage, "cookie@example.com");
    for (const base of ["http://cloud.test", "https://cloud.test"]) {
      const browser = formClient(t.cloud.handle, base);
      clock += 60 * MINUTE;
      await browser.get("/dashboard/sign-in");
      const res = await browser.post(
        "/dashboard/sign-in",
        { email: "cookie@example.com", password: OPERATOR_PASSWORD },
        {
          headers: { origin: base },
        },
      );
      const cookie = res.headers.getSetCookie().find((c) => /^(__Host-)?svc_session=/.test(c))!;
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; SameSite=Strict/);
      assert.equal(cookie.includes("; Secure"), base.startsWith("https"), base);
      assert.doesNotMatch(JSON.stringify(await t.storage.audit.listAudit({ limit: 100, offset: 0 })), /svco_/);
    }
  });

  test("refuses a form post without the CSRF token, or from another site; accepts Origin: null", async () => {
    const browser = await signedIn(t, "csrf@example.com");
    await browser.get("/dashboard/projects");
    const none = await browser.post("/dashboard/projects", { name: "no token" }, { csrf: null });
    assert.equal(none.status, 403);
    const forged = await browser.post("/dashboard/projects", { name: "forged" }, { csrf: "0".repeat(64) });
    assert.equal(forged.status, 403);
    const crossSite = await browser.post("/dashboard/projects", { name: "cross" }, {
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    assert.equal(crossSite.status, 403);
    const otherOrigin = await browser.post("/dashboard/projects", { name: "other" }, {
      headers: { origin: "https://evil.example" },
    });
    assert.equal(otherOrigin.status, 403);
    const names = (await t.storage.projects.listProjects()).map((p) => p.name);
    for (const name of ["no token", "forged", "cross", "other"]) assert.ok(!names.includes(name), name);
    const nullOrigin = await browser.post("/dashboard/projects", { name: "own form" }, { headers: { origin: "null" } });
    assert.equal(nullOrigin.status, 303, "Chromium's Origin: null under no-referrer is accepted with the token");
  });

  test("a viewer reads every page but a forged form post is refused", async () => {
    const viewer = await signedIn(t, "viewer@example.com", "viewer");
    const projects = await viewer.get("/dashboard/projects");
    assert.equal(projects.status, 200);
    assert.doesNotMatch(projects.text, /Create project/);
    const key = await t.mintKey("vic");
    const posts: [string, Record<string, string>][] = [
      ["/dashboard/projects", { name: "by viewer" }],
      [`/dashboard/projects/${t.project.id}/keys/${key.id}/revoke`, {}],
      [`/dashboard/projects/${t.project.id}/settings/rotate`, {}],
      [`/dashboard/projects/${t.project.id}/settings/rename`, { name: "renamed by viewer" }],
      [`/dashboard/projects/${t.project.id}/settings/delete`, { confirm: "Test" }],
      [`/dashboard/projects/${t.project.id}/settings/auto-revoke`, { threshold: "1", windowMinutes: "1", kinds: "X" }],
      [`/dashboard/projects/${t.project.id}/settings/auto-revoke/off`, {}],
    ];
    for (const [path, fields] of posts) assert.equal((await viewer.post(path, fields)).status, 403, path);
    assert.equal((await t.storage.keys.findProjectKey(t.project.id, key.id))?.revokedAt, null);
    assert.equal((await t.storage.projects.findProject(t.project.id))?.name, "Test");
    assert.equal((await t.sdk("GET", "/v1/sdk/intents")).status, 200, "the secret was not rotated");
  });

  test("a viewer's forged posts to discard an inbox item and to change the retention are refused and change nothing", async () => {
    const viewer = await signedIn(t, "viewer-posts@example.com", "viewer");
    const base = `/dashboard/projects/${t.project.id}`;
    await t.sdk("POST", "/v1/events", { body: event("viewer-stuck", "vera") });
    const [item] = (await t.storage.inbox.peekInbox(t.project.id, "vera", { limit: 10, offset: 0 })).items;
    const retention = (await t.storage.projects.projectPolicy(t.project.id)).retentionMs;
    await viewer.get(`${base}/inbox/vera`);
    const discard = await viewer.post(`${base}/inbox/vera/discard`, { inboxId: String(item.inboxId) });
    assert.equal(discard.status, 403);
    assert.match(discard.text, /Viewers can read but not change anything/);
    const keep = await viewer.post(`${base}/settings/retention`, { days: "1" });
    assert.equal(keep.status, 403);
    const waiting = await t.storage.inbox.peekInbox(t.project.id, "vera", { limit: 10, offset: 0 });
    assert.deepEqual(waiting.items.map((i) => i.eventId), ["viewer-stuck"], "the item is still waiting");
    assert.equal(
      (await t.storage.projects.projectPolicy(t.project.id)).retentionMs,
      retention,
      "the retention is unchanged",
    );
    for (const action of ["inbox.discard", "policy.retention"]) {
      const entries = await t.storage.audit.listAudit({ action, limit: 10, offset: 0 });
      assert.ok(!entries.entries.some((e) => e.actor === "viewer-posts@example.com"), action);
    }
  });

  test("every answer carries the security headers", async () => {
    const browser = formClient(t.cloud.handle);
    for (const path of ["/dashboard/sign-in", "/dashboard/projects", "/dashboard/style.css", "/dashboard/nope"]) {
      const res = await browser.get(path);
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'self'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer", path);
    }
  });

  test("with two-factor sign-in on, a TOTP code or a recovery code (once) is needed", async () => {
    const browser = await signedIn(t, "totp@example.com");
    await browser.get("/dashboard/account");
    const start = await browser.post("/dashboard/account/totp/start", {});
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(start.text)![1];
    const wrong = await browser.post("/dashboard/account/totp/confirm", { secret, code: "000000" });
    assert.equal(wrong.status, 400);
    const on = await browser.post("/dashboard/account/totp/confirm", { secret, code: totpCode(secret, clock) });
    assert.equal(on.status, 200);
    const codes = [...on.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]);
    assert.equal(codes.length, 10);

    assert.equal(await signIn("totp@example.com", ""), 401, "the password alone is not enough");
    clock += STEP; // the confirmation spent the current step's code
    assert.equal(await signIn("totp@example.com", totpCode(secret, clock)), 303);
    assert.equal(await signIn("totp@example.com", codes[0]), 303);
    assert.equal(await signIn("totp@example.com", codes[0]), 401, "a recovery code works once");
    const stored = await t.storage.operators.findOperatorByEmail("totp@example.com");
    assert.equal(stored?.recoveryCodeHashes.length, 9);
    assert.doesNotMatch(JSON.stringify(stored), new RegExp(codes[1]));
  });

  test("a TOTP code is accepted once: the same code again is refused, the next step's code is accepted", async () => {
    const browser = await signedIn(t, "replay@example.com");
    const secret = await turnOnTotp(browser);
    assert.equal(await signIn("replay@example.com", totpCode(secret, clock)), 401, "the confirming code is spent");
    clock += STEP;
    const code = totpCode(secret, clock);
    assert.equal(await signIn("replay@example.com", code), 303);
    assert.equal(await signIn("replay@example.com", code), 401, "the same code again");
    clock += STEP / 2;
    assert.equal(await signIn("replay@example.com", code), 401, "the same code later in its window");
    clock += STEP;
    const next = totpCode(secret, clock);
    assert.equal(await signIn("replay@example.com", next), 303, "the next step's code");
    assert.equal(await signIn("replay@example.com", totpCode(secret, clock - STEP)), 401, "an older step's code");
  });

  test("two sign-ins sent together with one TOTP code: exactly one gets in", async () => {
    const secret = await turnOnTotp(await signedIn(t, "race@example.com"));
    clock += STEP;
    const code = totpCode(secret, clock);
    const statuses = await Promise.all([signIn("race@example.com", code), signIn("race@example.com", code)]);
    assert.deepEqual(statuses.sort(), [303, 401]);
  });

  test("turning two-factor sign-in off takes a code not used before", async () => {
    const browser = await signedIn(t, "off@example.com");
    const secret = await turnOnTotp(browser);
    const replayed = await browser.post("/dashboard/account/totp/off", {
      code: totpCode(secret, clock),
      password: OPERATOR_PASSWORD,
    });
    assert.equal(replayed.status, 400, "the confirming code is spent");
    clock += STEP;
    const off = await browser.post("/dashboard/account/totp/off", {
      code: totpCode(secret, clock),
      password: OPERATOR_PASSWORD,
    });
    assert.equal(off.status, 200);
    assert.equal((await t.storage.operators.findOperatorByEmail("off@example.com"))?.totpSecret, null);
  });
});
