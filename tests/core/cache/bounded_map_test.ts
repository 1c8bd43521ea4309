// One bounded map for every in-memory cache of both sides: least recently used out first, an optional time to
// live on an injected clock, and a hook for what leaves.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BoundedMap } from "../../../core/cache/mod.ts";

describe("BoundedMap", () => {
  test("never holds more than maxEntries and evicts the least recently used", () => {
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>({
      maxEntries: 3,
      onEvict: (k, _v, why) => void evicted.push(`${k}:${why}`),
    });
    map.set("a", 1).set("b", 2).set("c", 3);
    assert.equal(map.get("a"), 1); // "b" is now the least recently used
    map.set("d", 4);
    assert.equal(map.size, 3);
    assert.deepEqual([...map.entries()].map(([k]) => k), ["c", "a", "d"]);
    assert.deepEqual(evicted, ["b:full"]);
    for (let i = 0; i < 100; i++) map.set(`k${i}`, i);
    assert.equal(map.size, 3);
  });

  test("peek reads without changing the order; setting a held key replaces it without evicting", () => {
    const map = new BoundedMap<string, number>({ maxEntries: 2 });
    map.set("a", 1).set("b", 2);
    assert.equal(map.peek("a"), 1);
    map.set("b", 20);
    assert.equal(map.size, 2);
    map.set("c", 3); // "a" stayed the least recently used
    assert.equal(map.has("a"), false);
    assert.equal(map.get("b"), 20);
  });

  test("an entry lives ttlMs after it was set, on the injected clock, and is reported expired", () => {
    let now = 1_000;
    const evicted: string[] = [];
    const map = new BoundedMap<string, string>({
      maxEntries: 10,
      ttlMs: 500,
      now: () => now,
      onEvict: (k, _v, why) => void evicted.push(`${k}:${why}`),
    });
    map.set("a", "alice");
    now = 1_499;
    assert.equal(map.get("a"), "alice");
    now = 1_500;
    assert.equal(map.has("a"), false);
    assert.equal(map.size, 0);
    assert.deepEqual(evicted, ["a:expired"]);
    map.set("a", "again");
    now = 1_999;
    assert.equal(map.peek("a"), "again", "a new set starts a new life");
  });

  test("when full, expired entries go before a live one", () => {
    let now = 0;
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>({
      maxEntries: 2,
      ttlMs: 100,
      now: () => now,
      onEvict: (k, _v, why) => void evicted.push(`${k}:${why}`),
    });
    map.set("old", 1);
    now = 50;
    map.set("live", 2);
    now = 120;
    map.set("new", 3);
    assert.deepEqual(evicted, ["old:expired"]);
    assert.equal(map.get("live"), 2);
  });

  test("delete and clear remove without the hook; a held null reads back as null", () => {
    const evicted: string[] = [];
    const map = new BoundedMap<string, number | null>({ maxEntries: 2, onEvict: (k) => void evicted.push(k) });
    map.set("a", null);
    assert.equal(map.has("a"), true);
    assert.equal(map.get("a"), null);
    assert.equal(map.delete("a"), true);
    assert.equal(map.delete("a"), false);
    map.set("b", 1);
    map.clear();
    assert.equal(map.size, 0);
    assert.deepEqual(evicted, []);
  });

  test("prune drops the expired entries in the order they were set, each told to the hook", () => {
    let now = 0;
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>({
      maxEntries: 10,
      ttlMs: 100,
      now: () => now,
      onEvict: (k, _v, why) => void evicted.push(`${k}:${why}`),
    });
    map.set("a", 1);
    now = 10;
    map.set("b", 2);
    now = 50;
    map.set("c", 3);
    now = 110;
    assert.equal(map.prune(), 2);
    assert.deepEqual(evicted, ["a:expired", "b:expired"]);
    assert.deepEqual([...map.entries()], [["c", 3]]);
  });

  test("without a time to live the clock is never read; reading the newest entry keeps the order exact", () => {
    let reads = 0;
    const evicted: string[] = [];
    const map = new BoundedMap<string | undefined, number>({
      maxEntries: 3,
      now: () => ++reads,
      onEvict: (k, _v, why) => void evicted.push(`${k}:${why}`),
    });
    map.set("a", 1).set("b", 2).set(undefined, 3);
    for (let i = 0; i < 3; i++) assert.equal(map.get(undefined), 3); // the newest, read again and again
    assert.equal(map.get("a"), 1);
    assert.equal(map.get("a"), 1);
    map.delete("a"); // the newest gone: the next newest is not taken for it
    assert.equal(map.get("b"), 2);
    map.set("c", 4).set("d", 5); // evicts the least recently used: undefined
    assert.deepEqual([...map.entries()].map(([k]) => k), ["b", "c", "d"]);
    assert.deepEqual(evicted, ["undefined:full"]);
    map.clear();
    map.set("e", 6);
    assert.equal(map.get("e"), 6);
    assert.equal(reads, 0);
  });

  test("refuses a bound below 1 and a time to live that is not positive", () => {
    assert.throws(() => new BoundedMap({ maxEntries: 0 }), RangeError);
    assert.throws(() => new BoundedMap({ maxEntries: 1, ttlMs: 0 }), RangeError);
  });
});
