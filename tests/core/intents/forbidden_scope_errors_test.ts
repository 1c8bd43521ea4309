// The FORBIDDEN_SCOPE refusal of an intent and its missing scopes: built once per pair, bounded, and found again by
// the key's own list of scopes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { forbiddenScopeErrors } from "../../../core/intents/forbidden_scope_errors.ts";

test("forbiddenScopeErrors() gives the same error for the same intent and missing scopes", () => {
  const forbidden = forbiddenScopeErrors();
  const error = forbidden("notes.create", ["notes:write"], ["notes:read"]);
  assert.equal(forbidden("notes.create", ["notes:write"], ["notes:read"]), error);
  assert.equal(forbidden("notes.create", ["notes:write"], []), error, "the same scope missing from another key");
  assert.equal(error.code, "FORBIDDEN_SCOPE");
  assert.equal(error.message, 'This key lacks scopes required by "notes.create"');
  assert.deepEqual(error.details, { missingScopes: ["notes:write"] });
  assert.notEqual(forbidden("notes.create", ["notes:write", "admin"], []), error, "other missing scopes, other error");
  assert.deepEqual(forbidden("notes.create", ["notes:write", "admin"], ["admin"]).details, {
    missingScopes: ["notes:write"],
  });
  assert.notEqual(forbidden("notes.list", ["notes:write"], []), error, "other intent, other error");
});

test("forbiddenScopeErrors() keeps at most `max` pairs, dropping the oldest", () => {
  const forbidden = forbiddenScopeErrors(2);
  const first = forbidden("a", ["s"], []);
  const second = forbidden("b", ["s"], []);
  forbidden("c", ["s"], []);
  assert.notEqual(forbidden("a", ["s"], []), first, "the oldest was dropped and is built again");
  assert.equal(forbidden("c", ["s"], []), forbidden("c", ["s"], []));
  assert.ok(second);
});

test("forbiddenScopeErrors() finds a key's refusal again by its list of scopes, without reading the list", () => {
  const forbidden = forbiddenScopeErrors();
  let reads = 0;
  const held = new Proxy(["notes:read"], {
    get(target, property, receiver) {
      reads++;
      return Reflect.get(target, property, receiver);
    },
  });
  const error = forbidden("notes.create", ["notes:write"], held);
  const afterFirst = reads;
  assert.ok(afterFirst > 0, "the first refusal reads the key's scopes");
  assert.equal(forbidden("notes.create", ["notes:write"], held), error);
  assert.equal(reads, afterFirst, "the same key's list again: nothing read, nothing built");
  assert.deepEqual(forbidden("notes.purge", ["notes:write", "admin"], held).details, {
    missingScopes: ["notes:write", "admin"],
  }, "another intent of the same key: its own refusal");
});
