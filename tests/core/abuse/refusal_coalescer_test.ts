// The coalescer's repeat(): counting a refusal of an open window without an item.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRefusalCoalescer } from "../../../core/abuse/mod.ts";

describe("createRefusalCoalescer().repeat", () => {
  test("counts a repeat of an open window and returns what the window keeps", () => {
    const c = createRefusalCoalescer<string>({ windowMs: 1000 });
    assert.equal(c.repeat("a", 0), undefined, "no window: nothing counted");
    assert.equal(c.size, 0);
    c.note("a", "first", 0);
    assert.equal(c.peek("a"), "first");
    assert.equal(c.repeat("a", 10), "first");
    assert.equal(c.repeat("a", 20), "first");
    assert.deepEqual(c.closed(1000), [{ item: "first", repeats: 2, since: 0 }]);
  });

  test("a window past its end is closed, not repeated", () => {
    const c = createRefusalCoalescer<string>({ windowMs: 1000 });
    c.note("a", "first", 0);
    c.repeat("a", 1);
    assert.equal(c.repeat("a", 1000), undefined);
    assert.deepEqual(c.closed(1000), [{ item: "first", repeats: 1, since: 0 }]);
  });
});
