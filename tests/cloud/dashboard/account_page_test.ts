// Turning two-factor sign-in off asks for the password again and slows down
// wrong codes as sign-in does, so a stolen or unattended session cannot
// brute-force one of the three valid codes.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { totpCode } from "../../../cloud/operators/mod.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";
import { OPERATOR_PASSWORD } from "./operator_fixture.ts";

let clock = Date.parse("2025-06-01T12:00:00.000Z");
const STEP = 30_000;

describe("turning two-factor sign-in off", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud({ dashboard: { now: () => clock, clientAddress: testAddress } });
  });
  after(() => t.close());

  async function turnOnTotp(browser: FormClient): Promise<{ secret: string; codes: string[] }> {
    await browser.get("/dashboard/account");
    const start = await browser.post("/dashboard/account/totp/start", {});
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(start.text)![1];
    const on = await browser.post("/dashboard/account/totp/confirm", { secret, code: totpCode(secret, clock) });
    assert.equal(on.status, 200);
    clock += STEP;
    return { secret, codes: [...on.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]) };
  }

  test("a valid code without the password does not turn it off", async () => {
    const browser = await signedIn(t, "nopass@example.com");
    const { secret } = await turnOnTotp(browser);
    await browser.get("/dashboard/account");
    const off = await browser.post("/dashboard/account/totp/off", { code: totpCode(secret, clock) });
    assert.equal(off.status, 400);
    const wrongPassword = await browser.post("/dashboard/account/totp/off", {
      code: totpCode(secret, clock),
      password: "not the password",
    });
    assert.equal(wrongPassword.status, 400);
    assert.notEqual((await t.storage.operators.findOperatorByEmail("nopass@example.com"))?.totpSecret, null);
  });

  test("wrong codes are slowed down like sign-in: past 5, even the right code and password wait", async () => {
    const browser = await signedIn(t, "brute@example.com");
    const { secret } = await turnOnTotp(browser);
    await browser.get("/dashboard/account");
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const guess = String(i).padStart(6, "0");
      if (guess === totpCode(secret, clock)) continue;
      statuses.push(
        (await browser.post("/dashboard/account/totp/off", { code: guess, password: OPERATOR_PASSWORD }))
          .status,
      );
    }
    assert.equal(statuses.filter((s) => s === 400).length, 5, statuses.join(","));
    assert.ok(statuses.slice(5).every((s) => s === 429), statuses.join(","));
    const right = await browser.post("/dashboard/account/totp/off", {
      code: totpCode(secret, clock),
      password: OPERATOR_PASSWORD,
    });
    assert.equal(right.status, 429);
    assert.ok(Number(right.headers.get("retry-after")) > 0);
    assert.notEqual((await t.storage.operators.findOperatorByEmail("brute@example.com"))?.totpSecret, null);
  });

  test("the password and a code, or a recovery code, turn it off", async () => {
    const browser = await signedIn(t, "recover@example.com");
    const { codes } = await turnOnTotp(browser);
    await browser.get("/dashboard/account");
    const off = await browser.post("/dashboard/account/totp/off", { code: codes[0], password: OPERATOR_PASSWORD });
    assert.equal(off.status, 200);
    assert.equal((await t.storage.operators.findOperatorByEmail("recover@example.com"))?.totpSecret, null);
  });
});
