// AgentClient.runAndWait(): a run that needs no approval answers at once; one that waits follows the approval to
// approved (with the result), denied (with the reason) or cancelled.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { AgentClient } from "../../../core/agent/agent_client.ts";
import { defineIntent } from "../../../mod.ts";
import { asUser, BASE, intents, mint, notesSvc } from "../../fixtures/notes_svc.ts";

const svc = notesSvc({
  intents: [
    ...intents,
    defineIntent({
      name: "notes.delete_all",
      title: "Delete all notes",
      requiredScopes: ["notes:write"],
      input: z.object({ folder: z.string() }),
      approval: "always",
      handler: ({ folder }) => ({ deleted: folder }),
    }),
  ],
});

describe("AgentClient.runAndWait", () => {
  after(() => svc.close());
  const client = (key: string) => new AgentClient({ key, appUrl: BASE, fetch: (req) => svc.handle(req) });

  test("an intent without approval runs at once", async () => {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    assert.deepEqual(await client(key).runAndWait("notes.list"), { status: "ran", result: { notes: ["a", "b"] } });
  });

  test("it follows a 202 to approved, with the result, once the user approves", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const outcome = await client(key).runAndWait("notes.delete_all", { folder: "old" }, {
      onPending: ({ approvalId }) => void asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`),
    });
    assert.equal(outcome.status, "approved");
    assert.deepEqual((outcome as { result: unknown }).result, { deleted: "old" });
  });

  test("it follows a 202 to denied, with the reason", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const outcome = await client(key).runAndWait("notes.delete_all", { folder: "old" }, {
      onPending: ({ approvalId }) =>
        void asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/deny`, { reason: "keep them" }),
    });
    assert.deepEqual(outcome, {
      status: "denied",
      approvalId: (outcome as { approvalId: string }).approvalId,
      reason: "keep them",
    });
  });
});
