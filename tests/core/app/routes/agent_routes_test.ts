import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { asAgent, asUser, errorOf, mint, notesSvc, run } from "../../../fixtures/notes_svc.ts";
import type { Violation } from "../../../../mod.ts";

describe("GET /svc/agent/intents", () => {
  const svc = notesSvc();
  after(() => svc.close());

  test("lists every intent with JSON Schema and whether this key may run it", async () => {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const res = await asAgent(svc, key, "GET", "/svc/agent/intents");
    assert.equal(res.status, 200);
    const { intents } = await res.json();
    const byName = Object.fromEntries(intents.map((i: { name: string }) => [i.name, i]));
    assert.deepEqual(Object.keys(byName["notes.create"]).sort(), [
      "allowed",
      "input",
      "name",
      "output",
      "requiredScopes",
      "title",
    ]);
    assert.equal(byName["notes.list"].allowed, true);
    assert.equal(byName["notes.create"].allowed, false);
    assert.equal(byName["notes.broken"].allowed, true, "an intent without scopes is allowed to every key");
    const input = byName["notes.create"].input;
    assert.equal(input.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(input.type, "object");
    assert.deepEqual(input.required, ["title"], "a field with a default is optional on input");
    assert.equal(input.properties.title.maxLength, 100);
    assert.equal(byName["notes.create"].output.properties.owner.type, "string");
  });

  test("refuses a request without an agent key with 401", async () => {
    const res = await asAgent(svc, null, "GET", "/svc/agent/intents");
    assert.equal(res.status, 401);
    assert.equal((await errorOf(res)).code, "UNAUTHORIZED");
  });
});

describe("POST /svc/agent/run", () => {
  const seen: Violation[] = [];
  const svc = notesSvc({ onViolation: (v) => void seen.push(v) });
  after(() => svc.close());

  test("runs an intent with a valid key and payload", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const res = await run(svc, key, "notes.create", { title: "hello" });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      ok: true,
      intent: "notes.create",
      result: { id: "n_hello", title: "hello", owner: "alice" },
    });
  });

  test("treats an absent payload as an empty object", async () => {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const res = await run(svc, key, "notes.list");
    assert.deepEqual((await res.json()).result, { notes: ["a", "b"] });
  });

  test("refuses a missing, malformed, unknown or wrong-kind key with 401", async () => {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const cases: Record<string, string>[] = [
      {},
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: key },
      { authorization: `Bearer  ${key}` },
      { authorization: `Basic ${key}` },
      { authorization: "Bearer svc_live_00000000000000000000000000000000" },
      { authorization: "Bearer svcs_00000000000000000000000000000000" },
    ];
    for (const headers of cases) {
      const res = await svc.handle(
        new Request("http://app.test/svc/agent/run", {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ intent: "notes.list" }),
        }),
      );
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal((await errorOf(res)).code, "UNAUTHORIZED");
    }
  });

  test("answers a revoked key 401 with reason revoked, an unknown one without a reason, and records REVOKED_KEY", async () => {
    const { id, key } = await mint(svc, "alice", ["notes:read"]);
    const { revokedAt } = await (await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`)).json();
    const revoked = await run(svc, key, "notes.list");
    const unknown = await run(svc, "svc_live_" + "x".repeat(40), "notes.list");
    assert.equal(revoked.status, 401);
    assert.deepEqual((await revoked.json()).error.details, { reason: "revoked", at: revokedAt });
    assert.deepEqual(await unknown.json(), {
      ok: false,
      error: { code: "UNAUTHORIZED", message: "Invalid agent key" },
    });
    const [violation] = await svc.violations({ keyId: id });
    assert.equal(violation.kind, "REVOKED_KEY");
    assert.equal(violation.severity, "warning");
  });

  test("checks the key before anything else: a revoked key with a bad payload gets 401", async () => {
    const { id, key } = await mint(svc, "alice", ["notes:write"]);
    await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`);
    assert.equal((await run(svc, key, "notes.create", { title: 42 })).status, 401);
    const res = await svc.handle(
      new Request("http://app.test/svc/agent/run", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: "not json",
      }),
    );
    assert.equal(res.status, 401, "even an unreadable body is refused for the key first");
  });

  test("checks scopes before the payload: a missing scope with a bad payload gets 403", async () => {
    const { id, key } = await mint(svc, "alice", ["notes:read"]);
    const res = await run(svc, key, "notes.create", { title: 42 });
    assert.equal(res.status, 403);
    const error = await errorOf(res);
    assert.equal(error.code, "FORBIDDEN_SCOPE");
    assert.deepEqual(error.details, { missingScopes: ["notes:write"] });
    const [violation] = await svc.violations({ keyId: id });
    assert.equal(violation.kind, "FORBIDDEN_SCOPE");
    assert.equal(violation.severity, "warning");
    assert.equal(violation.intent, "notes.create");
    assert.equal(violation.userId, "alice");
    assert.ok(seen.some((v) => v.id === violation.id), "onViolation saw it");
  });

  test("lists every missing scope", async () => {
    const { key } = await mint(svc, "alice", []);
    const error = await errorOf(await run(svc, key, "admin.wipe", { confirm: true }));
    assert.deepEqual(error.details, { missingScopes: ["admin", "notes:write"] });
  });

  test("refuses a payload that fails the input schema with 400 INTENT_VALIDATION_ERROR and its issues", async () => {
    const { id, key } = await mint(svc, "alice", ["notes:write"]);
    const res = await run(svc, key, "notes.create", {});
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "INTENT_VALIDATION_ERROR");
    const issues = (error.details as { issues: { path: string; message: string }[] }).issues;
    assert.equal(issues[0].path, "title");
    const [violation] = await svc.violations({ keyId: id });
    assert.equal(violation.kind, "INTENT_VALIDATION_ERROR");
    assert.equal(violation.severity, "info");
  });

  test("refuses a payload that is not an object", async () => {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    for (const payload of [[], "x", 3, null]) {
      const res = await run(svc, key, "notes.list", payload);
      assert.equal(res.status, 400, JSON.stringify(payload));
      assert.equal((await errorOf(res)).code, "INTENT_VALIDATION_ERROR");
    }
  });

  test("refuses a run body without an intent name with 400 VALIDATION_ERROR", async () => {
    const { key } = await mint(svc, "alice", []);
    for (const body of [{}, { intent: "" }, { intent: 3 }, []]) {
      const res = await asAgent(svc, key, "POST", "/svc/agent/run", body);
      assert.equal(res.status, 400);
      assert.equal((await errorOf(res)).code, "VALIDATION_ERROR");
    }
  });

  test("answers an unknown intent with 404 UNKNOWN_INTENT and records it", async () => {
    const { id, key } = await mint(svc, "alice", []);
    const res = await run(svc, key, "notes.nope");
    assert.equal(res.status, 404);
    assert.equal((await errorOf(res)).code, "UNKNOWN_INTENT");
    const [violation] = await svc.violations({ keyId: id });
    assert.equal(violation.kind, "UNKNOWN_INTENT");
    assert.equal(violation.severity, "info");
  });

  test("names the closest intent and GET /svc/agent/intents when an intent is unknown", async () => {
    const { key } = await mint(svc, "alice", []);
    const error = await errorOf(await run(svc, key, "notes.craete"));
    assert.equal(error.code, "UNKNOWN_INTENT");
    assert.equal(
      error.message,
      'Unknown intent "notes.craete". Did you mean "notes.create"? GET /svc/agent/intents lists the intents.',
    );
    assert.deepEqual(error.details, { didYouMean: "notes.create", intentsUrl: "/svc/agent/intents" });
    const far = await errorOf(await run(svc, key, "billing.refund"));
    assert.equal(far.message, 'Unknown intent "billing.refund". GET /svc/agent/intents lists the intents.');
    assert.deepEqual(far.details, { intentsUrl: "/svc/agent/intents" }, "no suggestion when nothing is close");
  });

  test("hides a handler's exception behind 500 INTENT_FAILED", async () => {
    const logged: unknown[] = [];
    const loud = notesSvc({ logger: (_m, cause) => logged.push(cause) });
    const { key } = await mint(loud, "alice", []);
    const res = await run(loud, key, "notes.broken");
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.ok(!text.includes("hunter2"));
    assert.equal(JSON.parse(text).error.code, "INTENT_FAILED");
    assert.equal(logged.length, 1, "the cause goes to the log");
    await loud.close();
  });

  test("passes on a 4xx SvcError thrown by a handler", async () => {
    const { key } = await mint(svc, "alice", []);
    const res = await run(svc, key, "notes.missing");
    assert.equal(res.status, 404);
    assert.deepEqual(await errorOf(res), { code: "NOT_FOUND", message: "No such note" });
  });

  test("returns a result that breaks its schema unless validateResults is on", async () => {
    const { key } = await mint(svc, "alice", []);
    assert.deepEqual((await (await run(svc, key, "notes.lies")).json()).result, { id: 42 });
    const strict = notesSvc({ validateResults: true });
    const k = await mint(strict, "alice", ["notes:write"]);
    const res = await run(strict, k.key, "notes.lies");
    assert.equal(res.status, 500);
    assert.equal((await errorOf(res)).code, "RESULT_VALIDATION_ERROR");
    const ok = await run(strict, k.key, "notes.create", { title: "t" });
    assert.equal(ok.status, 200, "a valid result passes");
    await strict.close();
  });
});

describe("intents outside the registry", () => {
  test("go to onAgentIntent with the payload and the key's owner", async () => {
    const calls: unknown[] = [];
    const svc = notesSvc({
      onAgentIntent: (intent, payload, user) => {
        calls.push({ intent, payload, user });
        return { handled: intent };
      },
    });
    const { key } = await mint(svc, "alice", []);
    const res = await run(svc, key, "legacy.export", { format: "csv" });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, intent: "legacy.export", result: { handled: "legacy.export" } });
    assert.deepEqual(calls, [{ intent: "legacy.export", payload: { format: "csv" }, user: "alice" }]);
    await svc.close();
  });

  test("are refused with UNKNOWN_INTENT under strictIntents, even with a fallback", async () => {
    let called = false;
    const svc = notesSvc({
      strictIntents: true,
      onAgentIntent: () => {
        called = true;
      },
    });
    const { key } = await mint(svc, "alice", []);
    const res = await run(svc, key, "legacy.export");
    assert.equal(res.status, 404);
    assert.equal((await errorOf(res)).code, "UNKNOWN_INTENT");
    assert.equal(called, false);
    await svc.close();
  });
});

describe("handle()", () => {
  const svc = notesSvc({ bodyLimit: 1024 });
  after(() => svc.close());

  test("answers an unknown route with the 404 envelope", async () => {
    for (const path of ["/svc/nope", "/", "/svc/agent"]) {
      const res = await asUser(svc, "alice", "GET", path);
      assert.equal(res.status, 404, path);
      assert.equal((await errorOf(res)).code, "NOT_FOUND");
    }
  });

  test("answers a known path with the wrong method with 405 and Allow", async () => {
    const res = await asUser(svc, "alice", "PUT", "/svc/keys");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST, GET");
    assert.equal((await errorOf(res)).code, "METHOD_NOT_ALLOWED");
  });

  test("refuses a body over the limit with 413 PAYLOAD_TOO_LARGE", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const res = await run(svc, key, "notes.create", { title: "x".repeat(2000) });
    assert.equal(res.status, 413);
    assert.equal((await errorOf(res)).code, "PAYLOAD_TOO_LARGE");
  });

  test("answers 404 for a route's path without /svc, so a fall-through never shadows the app's own routes", async () => {
    for (const path of ["/keys", "/agent/intents", "/svc"]) {
      const res = await asUser(svc, "alice", "GET", path);
      assert.equal(res.status, 404, path);
    }
  });

  test("works when passed unbound", async () => {
    const handle = svc.handle;
    assert.equal((await handle(new Request("http://app.test/svc/keys"))).status, 401);
  });
});
