// The sign-in limiter cannot be raced: an attempt is counted before its
// password is checked, so concurrent wrong passwords for one account from
// one address are checked at most the free number of times (5).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { formClient, testAddress } from "./form_client.ts";
import { createOperator, OPERATOR_PASSWORD } from "./operator_fixture.ts";

describe("concurrent sign-ins", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
  });
  after(() => t.close());

  test("12 concurrent wrong passwords for one account from one address: at most 5 are checked", async () => {
    await createOperator(t.storage, "raced@example.com");
    const client = formClient(t.cloud.handle, undefined, "10.20.30.40");
    await client.get("/dashboard/sign-in");
    const answers = await Promise.all(
      Array.from(
        { length: 12 },
        () => client.post("/dashboard/sign-in", { email: "raced@example.com", password: "wrong" }),
      ),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    assert.ok(checked <= 5, `${checked} of 12 were checked`);
    assert.equal(answers.filter((a) => a.status === 429).length, 12 - checked);
  });

  test("30 at once with the right password last do not sign in; a lone right password from elsewhere does", async () => {
    await createOperator(t.storage, "raced2@example.com");
    const client = formClient(t.cloud.handle, undefined, "10.20.30.41");
    await client.get("/dashboard/sign-in");
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        client.post("/dashboard/sign-in", {
          email: "raced2@example.com",
          password: i === 29 ? OPERATOR_PASSWORD : `wrong-${i}`,
        })),
    );
    assert.notEqual(answers[29].status, 303, "the right password, last of 30, was refused");
    assert.ok(answers.filter((a) => a.status === 401).length <= 5);
  });

  test("a right password after failures releases its own count: the next sign-in from the address is not slowed", async () => {
    await createOperator(t.storage, "steady@example.com");
    const client = formClient(t.cloud.handle, undefined, "10.20.30.42");
    await client.get("/dashboard/sign-in");
    for (let i = 0; i < 4; i++) {
      assert.equal(
        (await client.post("/dashboard/sign-in", { email: "steady@example.com", password: "no" })).status,
        401,
      );
    }
    const ok = await client.post("/dashboard/sign-in", { email: "steady@example.com", password: OPERATOR_PASSWORD });
    assert.equal(ok.status, 303);
    const other = formClient(t.cloud.handle, undefined, "10.20.30.42");
    await other.get("/dashboard/sign-in");
    const again = await other.post("/dashboard/sign-in", { email: "steady@example.com", password: OPERATOR_PASSWORD });
    assert.equal(again.status, 303);
  });
});
