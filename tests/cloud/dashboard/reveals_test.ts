// The dashboard's one-time secret holder: shown once, for its own project, within its time limit, bounded.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createReveals } from "../../../cloud/dashboard/reveals.ts";

const reveal = { projectId: "p1", sdkSecret: "sdk_secret" };

describe("createReveals", () => {
  test("take() answers a secret once, and only to its own project", () => {
    const reveals = createReveals(1000);
    const id = reveals.put(reveal, 0);
    assert.equal(reveals.take(id, "p2", 10), null);
    const other = reveals.put(reveal, 0);
    assert.deepEqual(reveals.take(other, "p1", 10), reveal);
    assert.equal(reveals.take(other, "p1", 20), null, "a reload finds nothing");
  });

  test("take() answers nothing once the time limit has passed", () => {
    const reveals = createReveals(1000);
    const id = reveals.put(reveal, 0);
    const late = reveals.put(reveal, 500);
    assert.equal(reveals.take(id, "p1", 1000), null);
    assert.deepEqual(reveals.take(late, "p1", 1499), reveal);
  });

  test("holds at most 1000 secrets, dropping the oldest", () => {
    const reveals = createReveals(60_000);
    const first = reveals.put(reveal, 0);
    const second = reveals.put(reveal, 0);
    for (let i = 0; i < 999; i++) reveals.put(reveal, 1);
    assert.equal(reveals.take(first, "p1", 2), null);
    assert.deepEqual(reveals.take(second, "p1", 2), reveal);
  });
});
