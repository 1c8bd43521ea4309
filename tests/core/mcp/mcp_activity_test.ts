// What agents did over MCP: each tools/call made with a known key is one activity record (via mcp), with the status
// the same answer has over HTTP; listing tools is none; a key that came from an OAuth grant names its client.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asUser, BASE, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { connectMcp } from "../../fixtures/mcp_client.ts";
import { oauthAccessToken } from "../../fixtures/oauth_app.ts";
import type { ActivityRecord } from "../../../core/contract/mod.ts";

const inProcess = (svc: Svc) => (url: string | URL, init?: RequestInit) => svc.handle(new Request(url, init));

async function activityOf(svc: Svc, user: string): Promise<ActivityRecord[]> {
  return (await (await asUser(svc, user, "GET", "/svc/activity")).json()).activity;
}

test("each tools/call is one record via mcp, whatever its outcome; tools/list is none", async () => {
  const svc = notesSvc();
  const { key, id } = await mint(svc, "alice", ["notes:write"]);
  const client = await connectMcp(BASE, key, inProcess(svc));
  try {
    await client.listTools();
    await client.callTool({ name: "notes.create", arguments: { title: "secret title" } });
    await client.callTool({ name: "notes.list", arguments: {} });
    await client.callTool({ name: "notes.create", arguments: { title: 42 } });
    await client.callTool({ name: "notes.broken", arguments: {} });
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }));
    const activity = (await activityOf(svc, "alice")).reverse();
    assert.deepEqual(activity.map(({ intent, via, outcome, status, code }) => [intent, via, outcome, status, code]), [
      ["notes.create", "mcp", "ok", 200, undefined],
      ["notes.list", "mcp", "refused", 403, "FORBIDDEN_SCOPE"],
      ["notes.create", "mcp", "invalid", 400, "INTENT_VALIDATION_ERROR"],
      ["notes.broken", "mcp", "failed", 500, "INTENT_FAILED"],
      ["nope", "mcp", "refused", 404, "UNKNOWN_INTENT"],
    ]);
    assert.ok(activity.every((r) => r.keyId === id && r.userId === "alice" && r.ms >= 0));
    assert.ok(!JSON.stringify(activity).includes("secret title"), "never the arguments");
  } finally {
    await client.close();
    await svc.close();
  }
});

test("a run with an OAuth access token names the OAuth client", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const key = await oauthAccessToken((req) => svc.handle(req), ["notes:read"]);
    const client = await connectMcp(BASE, key, inProcess(svc));
    await client.callTool({ name: "notes.list", arguments: {} });
    await client.close();
    const [record] = await activityOf(svc, "alice");
    assert.deepEqual([record.intent, record.outcome, record.client], ["notes.list", "ok", "Test Client"]);
  } finally {
    await svc.close();
  }
});
