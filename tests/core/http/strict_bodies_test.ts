// Strict bodies on every route: an unknown field is 400 VALIDATION_ERROR naming it and the closest known field, and
// the enumerations a policy names (violation kinds) are checked against the known values; /svc and /v1 alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { unknownFields } from "../../../core/http/validation.ts";
import { asAgent, asUser, errorOf, mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { startTestCloud } from "../../fixtures/test_cloud.ts";

test("POST /svc/keys/:id/reroll {graceSeconds} is refused, naming graceMinutes, and nothing is rerolled", async () => {
  const svc = notesSvc();
  try {
    const old = await mint(svc, "alice", ["notes:read"]);
    const res = await asUser(svc, "alice", "POST", `/svc/keys/${old.id}/reroll`, { graceSeconds: 10 });
    assert.equal(res.status, 400);
    assert.deepEqual(await errorOf(res), {
      code: "VALIDATION_ERROR",
      message: "Invalid request",
      details: {
        issues: [{ path: "graceSeconds", message: 'Unknown field "graceSeconds"; did you mean "graceMinutes"?' }],
      },
    });
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.equal(keys.length, 1, "no new key");
    assert.equal(keys[0].revokesAt, null, "no revocation scheduled");
  } finally {
    await svc.close();
  }
});

test("POST /svc/keys names an unknown field, without a hint when nothing is near", async () => {
  const svc = notesSvc();
  try {
    const res = await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scope: ["notes:read"], colour: "red" });
    assert.equal(res.status, 400);
    const { code, details } = await errorOf(res);
    assert.equal(code, "VALIDATION_ERROR");
    const issues = (details as { issues: { path: string; message: string }[] }).issues;
    assert.deepEqual(issues, [
      { path: "scopes", message: "Invalid input: expected array, received undefined" }, // the schema's issues first
      { path: "scope", message: 'Unknown field "scope"; did you mean "scopes"?' },
      { path: "colour", message: 'Unknown field "colour"' },
    ]);
  } finally {
    await svc.close();
  }
});

test("an agent's run body is strict, but the intent's payload is the app's schema's business", async () => {
  const svc = notesSvc();
  try {
    const { key } = await mint(svc, "alice", ["notes:read", "notes:write"]);
    const res = await asAgent(svc, key, "POST", "/svc/agent/run", { intent: "notes.list", payload: {}, intnet: "x" });
    assert.equal(res.status, 400);
    assert.deepEqual((await errorOf(res)).details, {
      issues: [{ path: "intnet", message: 'Unknown field "intnet"; did you mean "intent"?' }],
    });
    const listed = await run(svc, key, "notes.list", {});
    assert.equal(listed.status, 200);
  } finally {
    await svc.close();
  }
});

test("PUT /v1/sdk/policy refuses an unknown kind naming the known ones, and a nested unknown field", async () => {
  const t = await startTestCloud();
  try {
    const misspelt = await t.sdk("PUT", "/v1/sdk/policy", {
      body: { autoRevoke: { threshold: 3, windowMinutes: 10, kinds: ["FORBIDEN_SCOPE"] } },
    });
    assert.equal(misspelt.status, 400);
    const [issue] = (misspelt.body as { error: { details: { issues: { path: string; message: string }[] } } }).error
      .details.issues;
    assert.equal(issue.path, "autoRevoke.kinds.0");
    assert.match(issue.message, /Unknown violation kind "FORBIDEN_SCOPE"; the kinds are .*FORBIDDEN_SCOPE/);
    const nested = await t.sdk("PUT", "/v1/sdk/policy", {
      body: { autoRevoke: { threshold: 3, windowMinutes: 10, windowMinute: 10 } },
    });
    assert.equal(nested.status, 400);
    assert.deepEqual((nested.body as { error: { details: unknown } }).error.details, {
      issues: [{
        path: "autoRevoke.windowMinute",
        message: 'Unknown field "windowMinute"; did you mean "windowMinutes"?',
      }],
    });
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/policy")).body.autoRevoke, null, "nothing stored");
  } finally {
    await t.close();
  }
});

test("unknownFields() walks optional, nullable, arrays and unions, and leaves open values alone", () => {
  const schema = z.object({
    items: z.array(z.object({ id: z.string() })).optional(),
    choice: z.union([z.object({ a: z.number() }), z.object({ b: z.string() })]).nullable(),
    bag: z.record(z.string(), z.unknown()).optional(),
    open: z.looseObject({ x: z.number() }).optional(),
  });
  assert.deepEqual(unknownFields(schema, { items: [{ id: "1" }], choice: null, bag: { any: 1 }, open: { y: 1 } }), []);
  assert.deepEqual(unknownFields(schema, { items: [{ id: "1", idd: 2 }], choice: { b: "x", c: 1 } }), [
    { path: "items.0.idd", message: 'Unknown field "idd"; did you mean "id"?' },
    { path: "choice.c", message: 'Unknown field "c"; did you mean "b"?' }, // the option that accepts it
  ]);
  assert.deepEqual(unknownFields(schema, "not an object"), []);
  // Fields are walked into only where an object may be found: under a pipe, a lazy schema, an intersection, a default,
  // nested arrays; never under an open value.
  const node: z.ZodType = z.lazy(() => z.object({ name: z.string(), child: node.optional() }));
  const deep = z.object({
    piped: z.object({ a: z.number() }).transform((v) => v.a).optional(),
    lazy: node.optional(),
    both: z.intersection(z.object({ a: z.number() }), z.object({ b: z.number() })).optional(),
    grid: z.array(z.array(z.object({ c: z.number() }))).default([]),
    payload: z.unknown().optional(),
  });
  assert.deepEqual(
    unknownFields(deep, {
      piped: { a: 1, aa: 2 },
      lazy: { name: "n", child: { name: "m", chlid: {} } },
      both: { a: 1, b: 2, d: 3 },
      grid: [[{ c: 1 }, { cc: 2 }]],
      payload: { anything: { at: "all" } },
    }).map((issue) => issue.path),
    ["piped.aa", "lazy.child.chlid", "both.d", "grid.0.1.cc"],
  );
});
