// Approvals: a run of an intent with `approval` waits for its user's decision; the handler runs once, on approval,
// with the stored payload; deny, expiry (injected clock), revocation, another user and an agent key are refused.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { defineIntent, type Svc } from "../../../mod.ts";
import { asAgent, asUser, errorOf, intents, mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

/** The handler's calls, by payload. */
function wipeIntents(calls: unknown[]) {
  return [
    ...intents,
    defineIntent({
      name: "notes.delete_all",
      title: "Delete all notes",
      requiredScopes: ["notes:write"],
      input: z.object({ folder: z.string().min(1) }),
      output: z.object({ deleted: z.number() }),
      approval: "always",
      approvalTtlMinutes: 60,
      handler: (payload, user) => {
        calls.push({ payload, user });
        return { deleted: 3 };
      },
    }),
    defineIntent({
      name: "notes.send",
      title: "Send a note",
      requiredScopes: ["notes:write"],
      input: z.object({ to: z.string() }),
      approval: (payload) => payload.to.endsWith("@outside.example"),
      handler: (payload) => ({ sent: payload.to }),
    }),
  ];
}

function setup(overrides: Record<string, unknown> = {}) {
  let clock = Date.parse("2026-11-27T12:00:00Z");
  const calls: unknown[] = [];
  const svc = notesSvc({ intents: wipeIntents(calls), validateResults: true, ...overrides }, () => clock);
  return { svc, calls, advance: (ms: number) => void (clock += ms) };
}

async function requestApproval(svc: Svc, key: string, folder = "work") {
  const res = await run(svc, key, "notes.delete_all", { folder });
  assert.equal(res.status, 202);
  const body = await res.json();
  return body as { ok: true; status: string; approvalId: string; expiresAt: string; decideUrl: string };
}

describe("approvals", () => {
  const open: Svc[] = [];
  const dir = tempDir("svc-approvals-");
  after(async () => {
    for (const svc of open) await svc.close();
    dir.remove();
  });

  test("a run that needs approval answers 202 pending_approval without running the handler", async () => {
    const { svc, calls } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const body = await requestApproval(svc, key);
    assert.equal(body.ok, true);
    assert.equal(body.status, "pending_approval");
    assert.match(body.approvalId, /^apr_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(body.expiresAt, "2026-11-27T13:00:00.000Z");
    assert.equal(body.decideUrl, `http://app.test/svc/approvals/${body.approvalId}`);
    assert.equal(calls.length, 0);
    const listed = await (await asUser(svc, "alice", "GET", "/svc/approvals?status=pending")).json();
    assert.equal(listed.approvals.length, 1);
    assert.deepEqual(listed.approvals[0].payload, { folder: "work" });
    assert.equal(listed.approvals[0].keyName, "test key");
    assert.equal(listed.approvals[0].title, "Delete all notes");
  });

  test("approve runs the handler once with the stored payload; the agent reads the result; a second decision is 409", async () => {
    const { svc, calls } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const { approvalId } = await requestApproval(svc, key);
    const pending = await (await asAgent(svc, key, "GET", `/svc/agent/approvals/${approvalId}`)).json();
    assert.equal(pending.status, "pending");
    // A body sent with the decision changes nothing: the handler gets what was validated at the request.
    const res = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`, {
      payload: { folder: "everything" },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, status: "approved", result: { deleted: 3 } });
    assert.deepEqual(calls, [{ payload: { folder: "work" }, user: "alice" }]);
    const agent = await (await asAgent(svc, key, "GET", `/svc/agent/approvals/${approvalId}?wait=5`)).json();
    assert.equal(agent.status, "approved");
    assert.deepEqual(agent.result, { deleted: 3 });
    const again = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`);
    assert.equal(again.status, 409);
    assert.equal((await errorOf(again)).code, "ALREADY_DECIDED");
    const deny = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/deny`, {});
    assert.equal((await errorOf(deny)).code, "ALREADY_DECIDED");
    assert.equal(calls.length, 1);
  });

  test("a held agent poll ends when the user decides", async () => {
    const { svc } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const { approvalId } = await requestApproval(svc, key);
    const waiting = asAgent(svc, key, "GET", `/svc/agent/approvals/${approvalId}?wait=20`);
    await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`);
    const body = await (await waiting).json();
    assert.equal(body.status, "approved");
    assert.deepEqual(body.result, { deleted: 3 });
  });

  test("deny: nothing runs, the agent reads denied with the reason", async () => {
    const { svc, calls } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const { approvalId } = await requestApproval(svc, key);
    const res = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/deny`, { reason: "not today" });
    assert.deepEqual(await res.json(), { ok: true, status: "denied" });
    const agent = await (await asAgent(svc, key, "GET", `/svc/agent/approvals/${approvalId}`)).json();
    assert.equal(agent.status, "denied");
    assert.equal(agent.reason, "not today");
    assert.equal(calls.length, 0);
  });

  test("expiry follows the injected clock, is reported as expired (never denied), and refuses a late decision", async () => {
    const { svc, calls, advance } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const { approvalId } = await requestApproval(svc, key);
    advance(60 * 60_000);
    const agent = await (await asAgent(svc, key, "GET", `/svc/agent/approvals/${approvalId}`)).json();
    assert.equal(agent.status, "expired");
    assert.equal(agent.reason, undefined);
    const late = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`);
    assert.equal(late.status, 409);
    assert.equal(calls.length, 0);
  });

  test("revoking the key while pending cancels its approvals", async () => {
    const { svc, calls } = setup();
    open.push(svc);
    const { key, id } = await mint(svc, "alice", ["notes:write"]);
    const { approvalId } = await requestApproval(svc, key);
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`)).status, 200);
    const listed = await (await asUser(svc, "alice", "GET", "/svc/approvals")).json();
    assert.equal(listed.approvals[0].status, "cancelled");
    const late = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`);
    assert.equal((await errorOf(late)).code, "ALREADY_DECIDED");
    assert.equal(calls.length, 0);
  });

  test("another user, an unknown id and another key get 404; an agent key never decides (401)", async () => {
    const { svc, calls } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const other = await mint(svc, "bob", ["notes:write"]);
    const { approvalId } = await requestApproval(svc, key);
    for (
      const path of [`/svc/approvals/${approvalId}/approve`, "/svc/approvals/apr_01JZZZZZZZZZZZZZZZZZZZZZZZ/approve"]
    ) {
      const res = await asUser(svc, "bob", "POST", path);
      assert.equal(res.status, 404);
      assert.equal((await errorOf(res)).code, "NOT_FOUND");
    }
    assert.equal((await asUser(svc, "bob", "GET", `/svc/approvals/${approvalId}`)).status, 404);
    const otherKey = await asAgent(svc, other.key, "GET", `/svc/agent/approvals/${approvalId}`);
    assert.equal(otherKey.status, 404);
    const byAgent = await asAgent(svc, key, "POST", `/svc/approvals/${approvalId}/approve`);
    assert.equal(byAgent.status, 401);
    assert.equal((await errorOf(byAgent)).code, "UNAUTHORIZED");
    // Signed in as alice, but carrying the agent key: still refused.
    const both = await svc.handle(
      new Request(`http://app.test/svc/approvals/${approvalId}/approve`, {
        method: "POST",
        headers: { "x-user": "alice", authorization: `Bearer ${key}` },
      }),
    );
    assert.equal(both.status, 401);
    assert.equal(calls.length, 0);
  });

  test("the approval's rule may look at the payload: only what it flags waits", async () => {
    const { svc } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const inside = await run(svc, key, "notes.send", { to: "bob@home.example" });
    assert.equal(inside.status, 200);
    const outside = await run(svc, key, "notes.send", { to: "eve@outside.example" });
    assert.equal(outside.status, 202);
  });

  test("bad input gets the envelope before anything is stored; a missing scope is refused first", async () => {
    const { svc } = setup();
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const bad = await run(svc, key, "notes.delete_all", { folder: 7 });
    assert.equal(bad.status, 400);
    assert.equal((await errorOf(bad)).code, "INTENT_VALIDATION_ERROR");
    const reader = await mint(svc, "alice", ["notes:read"]);
    const refused = await run(svc, reader.key, "notes.delete_all", { folder: "work" });
    assert.equal((await errorOf(refused)).code, "FORBIDDEN_SCOPE");
    const deny = await asUser(svc, "alice", "POST", "/svc/approvals/x/deny", { reason: 5 });
    assert.equal((await errorOf(deny)).code, "VALIDATION_ERROR");
    const status = await asUser(svc, "alice", "GET", "/svc/approvals?status=maybe");
    assert.equal((await errorOf(status)).code, "VALIDATION_ERROR");
    const listed = await (await asUser(svc, "alice", "GET", "/svc/approvals")).json();
    assert.equal(listed.approvals.length, 0);
  });

  test("at most maxPendingPerKey pending per key, then 429 APPROVAL_PENDING_LIMIT", async () => {
    const { svc } = setup({ approvals: { maxPendingPerKey: 2 } });
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    await requestApproval(svc, key, "a");
    await requestApproval(svc, key, "b");
    const third = await run(svc, key, "notes.delete_all", { folder: "c" });
    assert.equal(third.status, 429);
    assert.equal((await errorOf(third)).code, "APPROVAL_PENDING_LIMIT");
  });

  test("onApprovalRequested hears the approval with its decideUrl; approvals.pageUrl is the app's own page", async () => {
    const heard: { approvalId: string; decideUrl: string; payload: unknown }[] = [];
    const { svc } = setup({
      approvals: { pageUrl: "https://app.example/approvals/{id}" },
      onApprovalRequested: (a: { approvalId: string; decideUrl: string; payload: unknown }) => void heard.push(a),
    });
    open.push(svc);
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const body = await requestApproval(svc, key);
    assert.equal(body.decideUrl, `https://app.example/approvals/${body.approvalId}`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(heard.length, 1);
    assert.equal(heard[0].decideUrl, body.decideUrl);
    assert.deepEqual(heard[0].payload, { folder: "work" });
  });

  test("defineIntent refuses an approvalTtlMinutes outside 1..10080 and an unknown approval rule", () => {
    const base = { name: "x", title: "X", requiredScopes: [], handler: () => null };
    for (const approvalTtlMinutes of [0, 10_081, 1.5]) {
      assert.throws(() => defineIntent({ ...base, approval: "always", approvalTtlMinutes }), /approvalTtlMinutes/);
    }
    // deno-lint-ignore no-explicit-any
    assert.throws(() => defineIntent({ ...base, approval: "sometimes" as any }), /approval must be/);
  });

  test("two processes racing to approve on one database file: one run, one 409", async () => {
    const file = `file:${dir.file("race.db")}`;
    const calls: unknown[] = [];
    const clock = () => Date.parse("2026-11-27T12:00:00Z");
    const first = notesSvc({ intents: wipeIntents(calls), storage: file }, clock);
    open.push(first);
    await first.ready;
    const second = notesSvc({ intents: wipeIntents(calls), storage: file }, clock);
    open.push(second);
    await second.ready;
    const { key } = await mint(first, "alice", ["notes:write"]);
    const { approvalId } = await requestApproval(first, key);
    const answers = await Promise.all(
      [first, second].map((svc) => asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`)),
    );
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409]);
    assert.equal(calls.length, 1);
    const agent = await (await asAgent(second, key, "GET", `/svc/agent/approvals/${approvalId}`)).json();
    assert.equal(agent.status, "approved");
    assert.deepEqual(agent.result, { deleted: 3 });
  });
});
