import { test } from "node:test";
import assert from "node:assert/strict";
import { closestIntent, editDistance } from "../../../core/intents/intent_suggestion.ts";

test("editDistance() counts insertions, deletions and substitutions", () => {
  assert.equal(editDistance("", ""), 0);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("notes.create", "notes.craete"), 2);
  assert.equal(editDistance("abc", ""), 3);
  assert.equal(editDistance("", "abc"), 3);
});

test("closestIntent() picks the nearest name within a third of its length (at least 2 edits)", () => {
  const names = ["notes.create", "notes.list", "admin.wipe"];
  assert.equal(closestIntent("notes.craete", names), "notes.create");
  assert.equal(closestIntent("notes.lst", names), "notes.list");
  assert.equal(closestIntent("Notes.List", names), "notes.list", "case is ignored");
  assert.equal(closestIntent("billing.refund", names), undefined);
  assert.equal(closestIntent("nope", names), undefined);
  assert.equal(closestIntent("x".repeat(5000), names), undefined, "a long name is not compared");
  assert.equal(closestIntent("notes.create", []), undefined);
});
