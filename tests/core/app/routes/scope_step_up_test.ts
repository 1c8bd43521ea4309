// Issue 41: whether a refusal may gain the step-up challenge is known without waiting, so that every other refusal
// (an app without `oauth`, another code, an intent outside the registry) is answered at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mayStepUp, stepUpRefusal } from "../../../../core/app/routes/scope_step_up.ts";
import { SvcError } from "../../../../core/errors/mod.ts";
import { z } from "zod";
import { compileIntents, defineIntent } from "../../../../core/intents/mod.ts";
import type { VerifiedKey } from "../../../../core/keys/mod.ts";

const intents = compileIntents([
  defineIntent({
    name: "notes.create",
    title: "Create a note",
    requiredScopes: ["notes:write"],
    input: z.object({}),
    handler: () => ({}),
  }),
], ["notes:read", "notes:write"]);
const forbidden = new SvcError("FORBIDDEN_SCOPE", "This key lacks scopes", { details: { missingScopes: [] } });
const key = { id: "k_1", scopes: ["notes:read"] } as VerifiedKey;
const req = new Request("https://app.example.com/svc/agent/run", { method: "POST" });

test("mayStepUp() is true only for a scope refusal of a registered intent in an app with oauth", () => {
  const oauth = { intents, scopeChallenge: () => Promise.resolve("Bearer") };
  assert.equal(mayStepUp(forbidden, "notes.create", oauth), true);
  assert.equal(mayStepUp(forbidden, "notes.create", { intents, scopeChallenge: null }), false, "no oauth");
  assert.equal(mayStepUp(forbidden, "notes.other", oauth), false, "outside the registry");
  assert.equal(mayStepUp(new SvcError("UNKNOWN_INTENT", "x"), "notes.create", oauth), false, "another code");
  assert.equal(mayStepUp(new Error("boom"), "notes.create", oauth), false, "not a refusal");
});

test("stepUpRefusal() returns the refusal as it is without oauth, and with the challenge for an access token", async () => {
  assert.equal(await stepUpRefusal(forbidden, req, key, "notes.create", { intents, scopeChallenge: null }), forbidden);
  const noGrant = { intents, scopeChallenge: () => Promise.resolve(null) };
  assert.equal(await stepUpRefusal(forbidden, req, key, "notes.create", noGrant), forbidden, "a pasted key");
  const asked: (readonly string[])[] = [];
  const granted = {
    intents,
    scopeChallenge: (_req: Request, _key: VerifiedKey, needed: readonly string[]) => (
      asked.push(needed), Promise.resolve('Bearer error="insufficient_scope"')
    ),
  };
  const stepped = await stepUpRefusal(forbidden, req, key, "notes.create", granted) as SvcError;
  assert.deepEqual(asked, [["notes:write"]], "asked with the intent's required scopes");
  assert.equal(stepped.code, "FORBIDDEN_SCOPE");
  assert.equal(stepped.message, forbidden.message);
  assert.deepEqual(stepped.details, forbidden.details);
  assert.equal(stepped.headers?.["www-authenticate"], 'Bearer error="insufficient_scope"');
});
