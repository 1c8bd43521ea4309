// Approvals over MCP, with the official SDK client: a call that waits answers a URL-mode elicitation (-32042) to a
// client that declared `elicitation.url`, else a `pending_approval` tool result; `svc.approval_status` reads it.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { defineIntent, type Svc } from "../../../mod.ts";
import { asUser, BASE, intents, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { connectMcp, textOf } from "../../fixtures/mcp_client.ts";

const calls: unknown[] = [];
const wipe = defineIntent({
  name: "notes.delete_all",
  title: "Delete all notes",
  requiredScopes: ["notes:write"],
  input: z.object({ folder: z.string() }),
  output: z.object({ deleted: z.number() }),
  approval: "always",
  handler: (payload) => {
    calls.push(payload);
    return { deleted: 3 };
  },
});

describe("MCP approvals", () => {
  const svc: Svc = notesSvc({ intents: [...intents, wipe] });
  const fetch = (url: string | URL, init?: RequestInit) => svc.handle(new Request(url, init));
  after(() => svc.close());

  test("without elicitation.url: a pending_approval tool result, then svc.approval_status reads the outcome", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const client = await connectMcp(BASE, key, fetch);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "svc.approval_status"));
    const result = await client.callTool({ name: "notes.delete_all", arguments: { folder: "work" } });
    assert.equal(result.isError, false);
    const pending = result.structuredContent as { status: string; approvalId: string; decideUrl: string };
    assert.equal(pending.status, "pending_approval");
    assert.match(pending.approvalId, /^apr_/);
    assert.equal(pending.decideUrl, `${BASE}/svc/approvals/${pending.approvalId}`);
    assert.equal(calls.length, 0);
    const before = await client.callTool({
      name: "svc.approval_status",
      arguments: { approvalId: pending.approvalId },
    });
    assert.equal((textOf(before) as { status: string }).status, "pending");
    assert.equal((await asUser(svc, "alice", "POST", `/svc/approvals/${pending.approvalId}/approve`)).status, 200);
    const outcome = await client.callTool({
      name: "svc.approval_status",
      arguments: { approvalId: pending.approvalId },
    });
    assert.deepEqual(outcome.structuredContent, {
      approvalId: pending.approvalId,
      status: "approved",
      result: { deleted: 3 },
      expiresAt: (outcome.structuredContent as { expiresAt: string }).expiresAt,
    });
    assert.equal(calls.length, 1);
    await client.close();
  });

  test("a client that declared elicitation.url gets URLElicitationRequiredError (-32042) with decideUrl", async () => {
    const { key } = await mint(svc, "bob", ["notes:write"]);
    const client = await connectMcp(BASE, key, fetch, { elicitation: { url: {} } });
    const refused = await client.callTool({ name: "notes.delete_all", arguments: { folder: "home" } }).then(
      () => assert.fail("expected -32042"),
      (error: { code: number; elicitations?: { mode: string; url: string; elicitationId: string }[] }) => error,
    );
    assert.equal(refused.code, -32042);
    const [elicitation] = refused.elicitations ?? [];
    assert.equal(elicitation.mode, "url");
    assert.match(elicitation.elicitationId, /^apr_/);
    assert.equal(elicitation.url, `${BASE}/svc/approvals/${elicitation.elicitationId}`);
    const listed = await (await asUser(svc, "bob", "GET", "/svc/approvals?status=pending")).json();
    assert.deepEqual(listed.approvals.map((a: { approvalId: string }) => a.approvalId), [elicitation.elicitationId]);
    await client.close();
  });

  test("the 2026-07-28 _meta capabilities ask for the elicitation per request", async () => {
    const { key } = await mint(svc, "carol", ["notes:write"]);
    const res = await svc.handle(
      new Request(`${BASE}/svc/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "notes.delete_all",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "notes.delete_all",
            arguments: { folder: "x" },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": { elicitation: { url: {} } },
            },
          },
        }),
      }),
    );
    const body = await res.json();
    assert.equal(body.error?.code, -32042, JSON.stringify(body));
    assert.match(body.error.data.elicitations[0].url, /\/svc\/approvals\/apr_/);
  });
});
