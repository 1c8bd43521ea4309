// The FORBIDDEN_SCOPE refusal of an intent and its missing scopes: built once per pair, bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { forbiddenScopeErrors } from "../../../core/intents/forbidden_scope_errors.ts";

test("forbiddenScopeErrors() gives the same error for the same intent and missing scopes", () => {
  const forbidden = forbiddenScopeErrors();
  const error = forbidden("notes.create", ["notes:write"]);
  assert.equal(forbidden("notes.create", ["notes:write"]), error);
  assert.equal(error.code, "FORBIDDEN_SCOPE");
  assert.equal(error.message, 'This key lacks scopes required by "notes.create"');
  assert.deepEqual(error.details, { missingScopes: ["notes:write"] });
  assert.notEqual(forbidden("notes.create", ["notes:write", "admin"]), error, "other missing scopes, other error");
  assert.notEqual(forbidden("notes.list", ["notes:write"]), error, "other intent, other error");
});

test("forbiddenScopeErrors() keeps at most `max` pairs, dropping the oldest", () => {
  const forbidden = forbiddenScopeErrors(2);
  const first = forbidden("a", ["s"]);
  const second = forbidden("b", ["s"]);
  forbidden("c", ["s"]);
  assert.notEqual(forbidden("a", ["s"]), first, "the oldest was dropped and is built again");
  assert.equal(forbidden("c", ["s"]), forbidden("c", ["s"]));
  assert.ok(second);
});
