// Issue 13, finding 14: the fallback `onAgentIntent` gets the payload as a
// plain, sanitised object (no own `__proto__` key at any depth), as
// zod-validated handlers do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { compileIntents, createIntentRunner, defineIntent } from "../../../core/intents/mod.ts";
import { isSvcError } from "../../../core/errors/mod.ts";
import type { Violation } from "../../../core/contract/mod.ts";
import type { VerifiedKey } from "../../../core/keys/mod.ts";

function hasOwnProto(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Object.hasOwn(value, "__proto__")) return true;
  return Object.values(value).some(hasOwnProto);
}

test("onAgentIntent receives a payload without own __proto__ keys, at any depth", async () => {
  const seen: Record<string, unknown>[] = [];
  const svc = notesSvc({
    onAgentIntent: (_intent, payload) => {
      seen.push(payload);
      return { ok: true };
    },
  });
  try {
    const { key } = await mint(svc, "alice", []);
    const body =
      '{"intent":"x.y","payload":{"__proto__":{"admin":true},"a":{"__proto__":{"b":1},"c":[{"__proto__":2}]}}}';
    const res = await svc.handle(
      new Request("http://app.test/svc/agent/run", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      }),
    );
    assert.equal(res.status, 200);
    assert.equal(seen.length, 1);
    assert.equal(hasOwnProto(seen[0]), false);
    assert.deepEqual(JSON.parse(JSON.stringify(seen[0])), { a: { c: [{}] } });
    assert.equal(Object.getPrototypeOf(seen[0]), Object.prototype);
    assert.equal((seen[0] as { admin?: unknown }).admin, undefined);
  } finally {
    await svc.close();
  }
});

const createNote = defineIntent({
  name: "notes.create",
  title: "Create a note",
  requiredScopes: ["notes:write"],
  input: z.object({ title: z.string() }),
  handler: ({ title }) => ({ id: `n_${title}` }),
});

const KEY: VerifiedKey = {
  id: "k_1",
  userId: "alice",
  name: "laptop",
  scopes: ["notes:read", "notes:write"],
  agentId: "alice",
  revokedAt: null,
  expiresAt: null,
  revokesAt: null,
};

// Issue 41: a refused run is answered without a throw. `attempt` returns the refusal (recorded as `run` records it),
// and `run` throws that same error.
test("attempt() returns each refusal without throwing, recorded as a violation, as run() throws it", async () => {
  const recorded: Violation[] = [];
  const runner = createIntentRunner({
    intents: compileIntents([createNote], ["notes:read", "notes:write"]),
    strictIntents: true,
    validateResults: false,
    recordViolation: (v) => recorded.push(v),
  });
  const readOnly: VerifiedKey = { ...KEY, scopes: ["notes:read"] };
  const cases: [VerifiedKey, string, unknown, string][] = [
    [KEY, "notes.nope", {}, "UNKNOWN_INTENT"],
    [readOnly, "notes.create", { title: "t" }, "FORBIDDEN_SCOPE"],
    [KEY, "notes.create", [], "INTENT_VALIDATION_ERROR"],
    [KEY, "notes.create", { title: 1 }, "INTENT_VALIDATION_ERROR"],
  ];
  for (const [key, intent, payload, code] of cases) {
    const refusal = runner.attempt(key, intent, payload);
    assert.ok(isSvcError(refusal), `${intent}: a refusal, not a promise`);
    assert.equal(refusal.code, code);
    assert.throws(() => runner.run(key, intent, payload), (e) => e === refusal || (isSvcError(e) && e.code === code));
  }
  assert.deepEqual(recorded.map((v) => v.kind), cases.flatMap(([, , , code]) => [code, code]));
  const ran = runner.attempt(KEY, "notes.create", { title: "milk" });
  assert.ok(ran instanceof Promise);
  assert.deepEqual(await ran, { id: "n_milk" });
});

test("attempt() records nothing for a refusal counted as a repeat, and answers the same refusal", () => {
  const recorded: Violation[] = [];
  const repeats: string[] = [];
  const runner = createIntentRunner({
    intents: compileIntents([createNote], ["notes:read", "notes:write"]),
    strictIntents: true,
    validateResults: false,
    recordViolation: (v) => recorded.push(v),
    repeatViolation: (keyId, kind, intent) => (repeats.push(`${keyId} ${kind} ${intent}`), true),
  });
  const readOnly: VerifiedKey = { ...KEY, scopes: ["notes:read"] };
  const first = runner.attempt(readOnly, "notes.create", {});
  assert.equal(runner.attempt(readOnly, "notes.create", {}), first, "the refusal is built once");
  assert.deepEqual(recorded, []);
  assert.deepEqual(repeats, [`${KEY.id} FORBIDDEN_SCOPE notes.create`, `${KEY.id} FORBIDDEN_SCOPE notes.create`]);
});
