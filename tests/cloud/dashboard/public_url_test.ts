// The dashboard behind a proxy that terminates TLS, through handle() of a real
// cloud: the public URL given to createCloud decides the Origin check, the
// cookies' Secure flag and HSTS; X-Forwarded-Proto never does.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { createCloud } from "../../../cloud/create_cloud.ts";
import { formClient, testAddress } from "./form_client.ts";
import { createOperator, OPERATOR_PASSWORD } from "./operator_fixture.ts";

const PUBLIC = "https://svc.example.test";
/** What the cloud sees behind the proxy: plain http on the loopback. */
const BEHIND = "http://127.0.0.1:8787";

describe("dashboard public URL", () => {
  let proxied: TestCloud;
  let direct: TestCloud;
  before(async () => {
    proxied = await startTestCloud({ dashboard: { clientAddress: testAddress, publicUrl: `${PUBLIC}/` } });
    direct = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    await createOperator(proxied.storage, "ops@example.com");
    await createOperator(direct.storage, "ops@example.com");
  });
  after(async () => {
    await proxied.close();
    await direct.close();
  });

  test("with publicUrl https://, a sign-in from that origin over plain http gets a Secure cookie and HSTS", async () => {
    const browser = formClient(proxied.cloud.handle, BEHIND);
    const page = await browser.get("/dashboard/sign-in");
    assert.equal(page.headers.get("strict-transport-security"), "max-age=31536000");
    assert.match(page.headers.get("set-cookie") ?? "", /; Secure/, "the pre-session cookie too");
    const res = await browser.post("/dashboard/sign-in", { email: "ops@example.com", password: OPERATOR_PASSWORD }, {
      headers: { origin: PUBLIC },
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("strict-transport-security"), "max-age=31536000");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-svc_session="));
    assert.match(cookie ?? "", /; Secure/);
    assert.equal(
      (await browser.get("/dashboard/projects")).headers.get("strict-transport-security"),
      "max-age=31536000",
    );
    assert.equal(
      (await browser.get("/dashboard/nowhere")).headers.get("strict-transport-security"),
      "max-age=31536000",
    );
  });

  test("with publicUrl, a post from the address the cloud sees (not the public one) is refused", async () => {
    const browser = formClient(proxied.cloud.handle, BEHIND);
    await browser.get("/dashboard/sign-in");
    const res = await browser.post("/dashboard/sign-in", { email: "ops@example.com", password: OPERATOR_PASSWORD }, {
      headers: { origin: BEHIND },
    });
    assert.equal(res.status, 403);
    assert.equal(browser.cookies.has("svc_session") || browser.cookies.has("__Host-svc_session"), false);
  });

  test("without publicUrl, X-Forwarded-Proto: https gives no Secure cookie and no HSTS", async () => {
    const browser = formClient(direct.cloud.handle, BEHIND);
    await browser.get("/dashboard/sign-in");
    const res = await browser.post("/dashboard/sign-in", { email: "ops@example.com", password: OPERATOR_PASSWORD }, {
      headers: { origin: BEHIND, "x-forwarded-proto": "https" },
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("strict-transport-security"), null);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_session="));
    assert.ok(cookie && !cookie.includes("Secure"), String(cookie));
  });

  test("a public URL that is not an http(s) origin is refused when the cloud is created", () => {
    for (
      const publicUrl of [
        "svc.example.com",
        "ftp://svc.example.com",
        "https://svc.example.com/dashboard",
        "https://svc.example.com/?a=1",
        "https://svc.example.com/#top",
        "https://user:pass@svc.example.com",
      ]
    ) {
      assert.throws(() => createCloud({ db: ":memory:", dashboard: { publicUrl } }), {
        name: "TypeError",
        message: /must be an http:\/\/ or https:\/\/ origin such as https:\/\/svc\.example\.com/,
      }, publicUrl);
    }
  });
});
