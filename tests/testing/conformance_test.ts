import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { createSvc, defineIntent, type Svc } from "../../mod.ts";
import { assertConformance, checkSvcConformance, type ConformanceReport, formatFailures } from "../../testing/mod.ts";
import { notesSvc, SCOPES } from "../fixtures/notes_svc.ts";

const options = { scopes: SCOPES, signIn: { "x-user": "conformance" } };

async function withSvc(check: (svc: Svc) => Promise<void>, svc: Svc = notesSvc()): Promise<void> {
  try {
    await check(svc);
  } finally {
    await svc.close();
  }
}

const failed = (report: ConformanceReport) =>
  report.intents.flatMap((i) => i.checks.filter((c) => !c.passed).map((c) => `${i.intent}: ${c.name}`));

test("checkSvcConformance passes a correct app, with a report for every intent", async () => {
  await withSvc(async (svc) => {
    const report = await checkSvcConformance(svc.handle, options);
    assert.equal(report.passed, true, formatFailures(report));
    assert.deepEqual(report.intents.map((i) => i.intent), [
      "notes.create",
      "notes.list",
      "admin.wipe",
      "notes.broken",
      "notes.missing",
      "notes.lies",
    ]);
    const create = report.intents[0].checks.map((c) => c.name);
    assert.ok(create.includes("without its scopes → 403 FORBIDDEN_SCOPE listing them"));
    assert.ok(create.includes('payload with "title" of the wrong type → 400 INTENT_VALIDATION_ERROR with issues'));
    assert.ok(create.includes('payload with required "title" missing → 400 INTENT_VALIDATION_ERROR with issues'));
    assertConformance(report);
  });
});

test("checkSvcConformance runs no handler unless the app opts in with a valid payload", async () => {
  const calls: string[] = [];
  const svc = createSvc({
    userResolver: (req) => req.headers.get("x-user"),
    scopes: ["a", "b"],
    logger: () => {},
    intents: [
      defineIntent({
        name: "side.effect",
        title: "Writes",
        requiredScopes: ["a"],
        input: z.object({ n: z.number(), tag: z.enum(["x", "y"]), on: z.boolean() }),
        handler: ({ n }) => (calls.push(`side.effect ${n}`), { n }),
      }),
      defineIntent({ name: "open", title: "No scopes", requiredScopes: [], handler: () => (calls.push("open"), {}) }),
    ],
  });
  await withSvc(async () => {
    const report = await checkSvcConformance(svc.handle, { scopes: ["a", "b"], signIn: { "x-user": "ci" } });
    assert.equal(report.passed, true, formatFailures(report));
    assert.deepEqual(calls, []);
    const opted = await checkSvcConformance(svc.handle, {
      scopes: ["a", "b"],
      signIn: (req) => new Request(req, { headers: { ...Object.fromEntries(req.headers), "x-user": "ci" } }),
      run: { "side.effect": { n: 7, tag: "x", on: true } },
    });
    assert.equal(opted.passed, true, formatFailures(opted));
    assert.deepEqual(calls, ["side.effect 7"]);
  }, svc);
});

test("checkSvcConformance catches an app that skips the scope check", async () => {
  await withSvc(async (svc) => {
    // A broken app: whatever the scopes, the intent runs.
    const broken = async (req: Request) => {
      const res = await svc.handle(req);
      if (res.status !== 403) return res;
      return Response.json({ ok: true, intent: "x", result: {} });
    };
    const report = await checkSvcConformance(broken, options);
    assert.equal(report.passed, false);
    assert.deepEqual(failed(report), [
      "notes.create: without its scopes → 403 FORBIDDEN_SCOPE listing them",
      "notes.list: without its scopes → 403 FORBIDDEN_SCOPE listing them",
      "admin.wipe: without its scopes → 403 FORBIDDEN_SCOPE listing them",
    ]);
    assert.throws(() => assertConformance(report), /notes\.create: without its scopes → 403 FORBIDDEN_SCOPE .*got 200/);
  });
});

test("checkSvcConformance catches payloads that reach the handler unchecked", async () => {
  await withSvc(async (svc) => {
    const broken = async (req: Request) => {
      const res = await svc.handle(req);
      if (res.status === 400 && (await res.clone().json()).error.code === "INTENT_VALIDATION_ERROR") {
        return Response.json({ ok: false, error: { code: "INTENT_FAILED", message: "boom" } }, { status: 500 });
      }
      return res;
    };
    const names = failed(await checkSvcConformance(broken, options));
    assert.ok(
      names.includes('notes.create: payload with "title" of the wrong type → 400 INTENT_VALIDATION_ERROR with issues'),
    );
    assert.ok(
      names.includes(
        'admin.wipe: payload with "confirm" other than its constant → 400 INTENT_VALIDATION_ERROR with issues',
      ),
    );
    assert.ok(names.every((n) => n.includes("INTENT_VALIDATION_ERROR")), names.join("\n"));
  });
});

test("checkSvcConformance catches revocation that does not revoke", async () => {
  await withSvc(async (svc) => {
    const broken = (req: Request) => {
      const id = /^\/svc\/keys\/([^/]+)$/.exec(new URL(req.url).pathname)?.[1];
      if (req.method !== "DELETE" || id === undefined) return svc.handle(req);
      return Response.json({ ok: true, id, revokedAt: new Date().toISOString() });
    };
    const report = await checkSvcConformance(broken, options);
    assert.equal(report.routes.find((c) => c.name.startsWith("DELETE /svc/keys/:id of an unknown key"))!.passed, false);
    const revoked = report.intents.map((i) =>
      i.checks.find((c) => c.name === "with a revoked key → 401 UNAUTHORIZED")!
    );
    assert.ok(revoked.every((c) => !c.passed));
  });
});

test("checkSvcConformance catches a plaintext key leaking into GET /svc/keys", async () => {
  await withSvc(async (svc) => {
    const keys: string[] = [];
    const leaky = async (req: Request) => {
      const res = await svc.handle(req);
      if (req.method === "POST" && new URL(req.url).pathname === "/svc/keys" && res.status === 201) {
        keys.push((await res.clone().json()).key);
      }
      if (req.method !== "GET" || new URL(req.url).pathname !== "/svc/keys") return res;
      const body = await res.json();
      return Response.json({ keys: body.keys.map((k: object, i: number) => ({ ...k, secret: keys[i] })) });
    };
    const report = await checkSvcConformance(leaky, options);
    const leak = report.routes.find((c) => c.name.startsWith("no answer but the mint's carries a plaintext key"))!;
    assert.equal(leak.passed, false);
  });
});

test("checkSvcConformance reports a sign-in that does not work instead of throwing", async () => {
  await withSvc(async (svc) => {
    const report = await checkSvcConformance(svc.handle, { ...options, signIn: {} });
    assert.equal(report.passed, false);
    assert.deepEqual(report.intents, []);
    assert.match(formatFailures(report), /minting with every scope failed/);
  });
});
