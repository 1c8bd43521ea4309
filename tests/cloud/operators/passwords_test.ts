import { test } from "node:test";
import assert from "node:assert/strict";
import { hashPassword, PASSWORD_COST, verifyPassword } from "../../../cloud/operators/passwords.ts";
import { TEST_PASSWORD_COST } from "../../fixtures/test_cloud.ts";

test("a password hash is scrypt with its parameters and a fresh salt, and verifies only the same password", async () => {
  // Production's cost, hashed once (about a second of pure-JS scrypt): its form, and that it verifies only the same.
  const a = await hashPassword("correct horse battery staple");
  assert.equal(PASSWORD_COST, 15);
  assert.match(a, /^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  assert.equal(await verifyPassword("correct horse battery staple", a), true);
  assert.equal(await verifyPassword("correct horse battery stapl", a), false);
  assert.doesNotMatch(a, /horse/);
  // The rest at the tests' cost: the cost is read from the stored hash, so the checks are the same code.
  const b = await hashPassword("correct horse battery staple", TEST_PASSWORD_COST);
  const c = await hashPassword("correct horse battery staple", TEST_PASSWORD_COST);
  assert.match(b, new RegExp(`^scrypt\\$${TEST_PASSWORD_COST}\\$8\\$1\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
  assert.notEqual(b, c, "a fresh salt each time");
  assert.notEqual(a.split("$")[4], b.split("$")[4], "a fresh salt each time");
  assert.equal(await verifyPassword("correct horse battery staple", b), true);
  assert.equal(await verifyPassword("correct horse battery stapl", b), false);
  assert.equal(await verifyPassword("correct horse battery staple", "md5$x"), false);
});
