import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { errorResponse, readJson } from "../../../core/http/mod.ts";
import { REDACT_DEPTH, redactingLogger } from "../../../core/logging/mod.ts";
import { isSvcError, SvcError } from "../../../core/errors/mod.ts";
import { createRouter } from "../../../core/http/mod.ts";

function post(body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) {
  return new Request("http://x/svc", { method: "POST", body, headers });
}

describe("readJson()", () => {
  test("parses a JSON body", async () => {
    assert.deepEqual(await readJson(post('{"a":1}')), { a: 1 });
  });
  test("refuses a body without the JSON content type as INVALID_JSON", async () => {
    await assert.rejects(readJson(post("{}", { "content-type": "text/plain" })), { code: "INVALID_JSON" });
  });
  test("refuses malformed JSON as INVALID_JSON", async () => {
    await assert.rejects(readJson(post("{")), { code: "INVALID_JSON" });
  });
  test("refuses a body over the limit while reading a stream without a length", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        if (pulled > 1000) return c.close();
        c.enqueue(new Uint8Array(1024));
      },
    });
    const req = new Request("http://x/svc", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      // @ts-ignore: needed by Node's fetch for a stream body
      duplex: "half",
    });
    await assert.rejects(readJson(req, 10 * 1024), { code: "PAYLOAD_TOO_LARGE" });
    assert.ok(pulled < 100, `read ${pulled} chunks of a 1 MB body with a 10 KB limit`);
  });
  test("refuses a declared Content-Length over the limit before reading", async () => {
    const req = post("{}", { "content-type": "application/json", "content-length": "99999999" });
    await assert.rejects(readJson(req, 1024), { code: "PAYLOAD_TOO_LARGE" });
  });
  test("refuses invalid UTF-8 as INVALID_JSON", async () => {
    await assert.rejects(readJson(post(new Uint8Array([0x22, 0xff, 0x22]))), { code: "INVALID_JSON" });
  });
});

describe("errorResponse()", () => {
  test("turns an SvcError into the envelope with its status and headers", async () => {
    const res = errorResponse(new SvcError("RATE_LIMITED", "Slow down", { headers: { "retry-after": "3" } }));
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("retry-after"), "3");
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), { ok: false, error: { code: "RATE_LIMITED", message: "Slow down" } });
  });
  test("hides an unknown error behind a generic INTERNAL 500 and logs its cause", async () => {
    const logged: unknown[] = [];
    const res = errorResponse(new Error("SELECT secret FROM keys"), (_m, cause) => logged.push(cause));
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.ok(!text.includes("SELECT"));
    assert.deepEqual(JSON.parse(text), { ok: false, error: { code: "INTERNAL", message: "Internal error" } });
    assert.equal(logged.length, 1);
  });
  test("recognises an SvcError from another copy of the package by its shape", () => {
    const foreign = Object.assign(new Error("x"), { name: "SvcError", code: "NOT_FOUND", status: 404 });
    assert.ok(isSvcError(foreign));
    assert.ok(!isSvcError(Object.assign(new Error("x"), { name: "SvcError", code: "NOT_FOUND", status: 500 })));
  });
});

describe("redactingLogger()", () => {
  const KEY = `svc_live_${"K".repeat(40)}`;
  const SECRET = `svcs_${"S".repeat(40)}`;

  /** Everything a logger could print of a cause: messages, stacks, fields, causes, nested errors. */
  function printable(value: unknown, seen = new Set<unknown>()): string {
    if (typeof value !== "object" || value === null || seen.has(value)) return String(value);
    seen.add(value);
    const parts = value instanceof Error ? [value.name, value.message, value.stack ?? ""] : [];
    for (const k of Object.getOwnPropertyNames(value)) {
      parts.push(k, printable((value as Record<string, unknown>)[k], seen));
    }
    return parts.join("\n");
  }

  function logged(cause: unknown): unknown {
    let seen: unknown;
    redactingLogger((_message, c) => seen = c)("failed", cause);
    return seen;
  }

  test("redacts a key in an error's nested causes, keeping their names, messages and fields", () => {
    const inner = Object.assign(new TypeError(`bad token ${KEY}`), { code: "E_TOKEN", detail: { token: SECRET } });
    const middle = new Error("upstream refused", { cause: inner });
    const outer = new Error("the intent failed", { cause: middle });
    const seen = logged(outer) as Error;
    assert.ok(!printable(seen).includes("KKKKKKKK"), printable(seen));
    assert.ok(!printable(seen).includes("SSSSSSSS"), printable(seen));
    assert.equal(seen.message, "the intent failed");
    const seenInner = (seen.cause as Error).cause as Error & { code: string; detail: { token: string } };
    assert.equal(seenInner.name, "TypeError");
    assert.equal(seenInner.message, "bad token svc_live_…");
    assert.equal(seenInner.code, "E_TOKEN");
    assert.equal(seenInner.detail.token, "svcs_…");
    assert.ok(seenInner.stack?.includes("bad token svc_live_…"));
    assert.ok(printable(outer).includes("KKKKKKKK"), "the thrown error itself is left alone");
  });

  test("redacts causes that are strings, plain objects or an AggregateError's errors", () => {
    for (const cause of [KEY, { token: KEY }, [KEY], new AggregateError([new Error(KEY)], "several")]) {
      const seen = logged(new Error("failed", { cause }));
      assert.ok(!printable(seen).includes("KKKKKKKK"), printable(seen));
    }
  });

  test("passes a cause with nothing to redact as it is, and stops at a bounded depth", () => {
    const clean = new Error("plain", { cause: new Error("also plain") });
    assert.equal(logged(clean), clean);
    const loop: Error = new Error(`loop ${KEY}`);
    loop.cause = loop;
    assert.ok(!printable(logged(loop)).includes("KKKKKKKK"), "a cycle ends");
    let deep: unknown = KEY;
    for (let i = 0; i < REDACT_DEPTH + 5; i++) deep = { inner: deep };
    assert.ok(!printable(logged(deep)).includes("KKKKKKKK"), "too deep is cut, not passed");
  });
});

describe("createRouter()", () => {
  const match = createRouter(
    [
      { method: "GET", path: "/svc/keys" },
      { method: "POST", path: "/svc/keys" },
      { method: "DELETE", path: "/svc/keys/:id" },
    ] as const,
    "/svc",
  );
  test("matches a path with its parameters", () => {
    assert.deepEqual(match("DELETE", "/svc/keys/a%20b").params, { id: "a b" });
  });
  test("answers NOT_FOUND for a route's path without its prefix", () => {
    assert.throws(() => match("GET", "/keys"), { code: "NOT_FOUND" });
  });
  test("answers METHOD_NOT_ALLOWED with Allow for a known path", () => {
    assert.throws(() => match("PUT", "/svc/keys"), (e) => isSvcError(e) && e.headers?.allow === "GET, POST");
  });
  test("answers NOT_FOUND for an unknown path", () => {
    assert.throws(() => match("GET", "/svc/nope"), { code: "NOT_FOUND" });
  });
});
