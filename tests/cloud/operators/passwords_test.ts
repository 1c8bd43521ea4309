import { test } from "node:test";
import assert from "node:assert/strict";
import { hashPassword, verifyPassword } from "../../../cloud/operators/passwords.ts";

test("a password hash is scrypt with its parameters and a fresh salt, and verifies only the same password", async () => {
  const a = await hashPassword("correct horse battery staple");
  const b = await hashPassword("correct horse battery staple");
  assert.match(a, /^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  assert.notEqual(a, b, "a fresh salt each time");
  assert.equal(await verifyPassword("correct horse battery staple", a), true);
  assert.equal(await verifyPassword("correct horse battery stapl", a), false);
  assert.equal(await verifyPassword("correct horse battery staple", "md5$x"), false);
  assert.doesNotMatch(a, /horse/);
});
