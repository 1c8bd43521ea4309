// Operators' TOTP secrets encrypted at rest with the operator's key: the
// database holds only the sealed form, every caller sees the secret, secrets
// stored before the key was set are sealed when the storage opens with it,
// and a sealed secret copied to another operator's row does not open.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { newOperator, SEALED_PREFIX, totpCode } from "../../../cloud/operators/mod.ts";
import { startTestCloud, TEST_PASSWORD_COST } from "../../fixtures/test_cloud.ts";
import { formClient, testAddress } from "../dashboard/form_client.ts";
import { createOperator, OPERATOR_PASSWORD } from "../dashboard/operator_fixture.ts";

const KEY = btoa(String.fromCharCode(...new Uint8Array(32).map((_, i) => i * 7 + 3)));
const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

async function storedSecret(client: ReturnType<typeof createClient>, email: string): Promise<string | null> {
  const rs = await client.execute({ sql: "SELECT totp_secret FROM cloud_operators WHERE email = ?", args: [email] });
  return rs.rows[0].totp_secret as string | null;
}

test("a secret stored as it is is sealed when the storage opens with a key, and still reads the same", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    const plain = await openCloudStorage(client);
    const op = {
      ...await newOperator("old@example.com", "admin", OPERATOR_PASSWORD, Date.now(), TEST_PASSWORD_COST),
      totpSecret: SECRET,
    };
    assert.equal(await plain.operators.createOperator(op), true);
    assert.equal(await storedSecret(client, "old@example.com"), SECRET);
    const keyed = await openCloudStorage(client, { secretKey: KEY });
    const stored = await storedSecret(client, "old@example.com");
    assert.ok(stored?.startsWith(SEALED_PREFIX), String(stored));
    assert.doesNotMatch(stored!, new RegExp(SECRET));
    assert.equal((await keyed.operators.findOperatorByEmail("old@example.com"))?.totpSecret, SECRET);
    assert.equal((await keyed.operators.listOperators())[0].totpSecret, SECRET);
    // Written through the keyed storage: sealed again, a fresh IV each time.
    await keyed.operators.updateOperator(op.id, { totpSecret: SECRET }, op.updatedAt);
    const again = await storedSecret(client, "old@example.com");
    assert.ok(again?.startsWith(SEALED_PREFIX));
    assert.notEqual(again, stored);
    // Copied into another operator's row, it does not open (the operator's id is bound to it).
    const other = await newOperator("other@example.com", "admin", OPERATOR_PASSWORD, Date.now(), TEST_PASSWORD_COST);
    await plain.operators.createOperator({ ...other, totpSecret: again });
    await assert.rejects(keyed.operators.findOperatorByEmail("other@example.com"));
  } finally {
    client.close();
  }
});

test("a key that is not 32 bytes of base64 is refused with what to do", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    await assert.rejects(openCloudStorage(client, { secretKey: "short" }), /openssl rand -base64 32/);
  } finally {
    client.close();
  }
});

test("with a key, two-factor sign-in turned on through the dashboard stores only the sealed secret and works", async () => {
  let clock = Date.parse("2025-06-01T12:00:00.000Z");
  const t = await startTestCloud({ secretKey: KEY, dashboard: { now: () => clock, clientAddress: testAddress } });
  try {
    await createOperator(t.storage, "sealed@example.com");
    const browser = formClient(t.cloud.handle);
    await browser.get("/dashboard/sign-in");
    await browser.post("/dashboard/sign-in", { email: "sealed@example.com", password: OPERATOR_PASSWORD });
    await browser.get("/dashboard/account");
    const start = await browser.post("/dashboard/account/totp/start", {});
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(start.text)![1];
    const on = await browser.post("/dashboard/account/totp/confirm", { secret, code: totpCode(secret, clock) });
    assert.equal(on.status, 200);
    const stored = await storedSecret(t.client, "sealed@example.com");
    assert.ok(stored?.startsWith(SEALED_PREFIX), String(stored));
    clock += 30_000;
    const again = formClient(t.cloud.handle);
    await again.get("/dashboard/sign-in");
    const res = await again.post("/dashboard/sign-in", {
      email: "sealed@example.com",
      password: OPERATOR_PASSWORD,
      code: totpCode(secret, clock),
    });
    assert.equal(res.status, 303);
  } finally {
    await t.close();
  }
});
