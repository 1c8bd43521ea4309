import { test } from "node:test";
import assert from "node:assert/strict";
import { closestField, closestName, editDistance } from "../../../core/contract/closest_name.ts";

test("editDistance() counts insertions, deletions and substitutions", () => {
  assert.equal(editDistance("", ""), 0);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("notes.create", "notes.craete"), 2);
  assert.equal(editDistance("abc", ""), 3);
  assert.equal(editDistance("", "abc"), 3);
});

test("closestName() picks the nearest name within a third of its length (at least 2 edits)", () => {
  const names = ["notes.create", "notes.list", "admin.wipe"];
  assert.equal(closestName("notes.craete", names), "notes.create");
  assert.equal(closestName("notes.lst", names), "notes.list");
  assert.equal(closestName("Notes.List", names), "notes.list", "case is ignored");
  assert.equal(closestName("billing.refund", names), undefined);
  assert.equal(closestName("nope", names), undefined);
  assert.equal(closestName("x".repeat(5000), names), undefined, "a long name is not compared");
  assert.equal(closestName("notes.create", []), undefined);
});

test("closestField() names a field sharing a word when no name is within a few edits", () => {
  assert.equal(closestField("graceSeconds", ["graceMinutes"]), "graceMinutes");
  assert.equal(closestField("expiresInDay", ["expiresAt", "expiresInDays"]), "expiresInDays");
  assert.equal(closestField("scope", ["name", "scopes"]), "scopes");
  assert.equal(closestField("max_deliveries", ["maxDeliveries", "threshold"]), "maxDeliveries");
  assert.equal(closestField("colour", ["name", "scopes"]), undefined);
  assert.equal(closestField("x".repeat(5000), ["x"]), undefined, "a long name is not compared");
});
