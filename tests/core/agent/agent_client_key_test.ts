// AgentClient.key(): the agent sees when its key stops working (its expiry, or the end of a reroll's grace),
// against a real app whose clock the test moves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AgentClient } from "../../../core/agent/mod.ts";
import { isSvcError } from "../../../core/errors/mod.ts";
import { asUser, BASE, mint, notesSvc } from "../../fixtures/notes_svc.ts";

test("key() tells the key's scopes, its expiry and a reroll's scheduled revocation; an expired key is refused", async () => {
  let at = Date.parse("2026-03-01T00:00:00.000Z");
  const svc = notesSvc({}, () => at);
  try {
    const minted = await mint(svc, "alice", ["notes:read"], { expiresInDays: 7 });
    const agent = new AgentClient({ key: minted.key, appUrl: BASE, fetch: (req) => svc.handle(req) });
    assert.deepEqual(await agent.key(), {
      id: minted.id,
      name: "test key",
      scopes: ["notes:read"],
      agentId: "alice",
      expiresAt: new Date(at + 7 * 86_400_000).toISOString(),
      revokesAt: null,
    });
    await asUser(svc, "alice", "POST", `/svc/keys/${minted.id}/reroll`, { graceMinutes: 60 });
    assert.equal((await agent.key()).revokesAt, new Date(at + 3_600_000).toISOString());
    at += 3_600_000;
    await assert.rejects(agent.key(), (e) => isSvcError(e) && e.code === "UNAUTHORIZED");
  } finally {
    await svc.close();
  }
});
