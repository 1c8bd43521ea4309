import { test } from "node:test";
import assert from "node:assert/strict";
import { createNotesApp, NOTES_SCOPES } from "../../examples/notes_app.ts";
import { assertConformance, checkSvcConformance } from "../../testing/mod.ts";

test("the example notes app walks through mint, run, scope refusal, schema refusal and revoke", async () => {
  const app = await createNotesApp({ db: ":memory:" });
  const call = (path: string, init: RequestInit = {}) => app.fetch(new Request(`http://127.0.0.1${path}`, init));
  const json = { "content-type": "application/json" };
  try {
    const minted = await call("/svc/keys", {
      method: "POST",
      headers: { ...json, cookie: "session=alice" },
      body: JSON.stringify({ name: "agent", scopes: ["notes:read", "notes:write"] }),
    });
    assert.equal(minted.status, 201);
    const { key, id } = await minted.json();
    const agent = { ...json, authorization: `Bearer ${key}` };
    const runIntent = (intent: string, payload?: unknown) =>
      call("/svc/agent/run", { method: "POST", headers: agent, body: JSON.stringify({ intent, payload }) });

    const created = await runIntent("notes.create", { title: "Buy milk" });
    assert.equal(created.status, 200);
    const listed = await (await runIntent("notes.list")).json();
    assert.deepEqual(listed.result.notes.map((n: { title: string }) => n.title), ["Buy milk"]);
    assert.equal((await runIntent("notes.delete", { id: crypto.randomUUID() })).status, 403);
    assert.equal((await runIntent("notes.create", {})).status, 400);
    assert.equal(
      (await call(`/svc/keys/${id}`, { method: "DELETE", headers: { cookie: "session=alice" } })).status,
      200,
    );
    assert.equal((await runIntent("notes.list")).status, 401);
    assert.equal((await call("/")).status, 200, "the app's own route is still served");
  } finally {
    await app.close();
  }
});

test("the example notes app passes the conformance kit, running only notes.list for real", async () => {
  const app = await createNotesApp({ db: ":memory:" });
  try {
    const report = await checkSvcConformance(app.fetch, {
      scopes: NOTES_SCOPES,
      signIn: { cookie: "session=conformance" },
      run: { "notes.list": {} },
    });
    assertConformance(report);
    assert.deepEqual(report.intents.map((i) => i.intent), ["notes.create", "notes.list", "notes.delete"]);
    const keys = await app.fetch(
      new Request("http://127.0.0.1/svc/keys", { headers: { cookie: "session=conformance" } }),
    );
    const active = (await keys.json()).keys.filter((k: { revokedAt: string | null }) => k.revokedAt === null);
    assert.deepEqual(active, [], "the kit revokes every key it minted");
  } finally {
    await app.close();
  }
});
