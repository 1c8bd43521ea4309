// Issue 13, finding 13: an agentId that URL parsing would rewrite ("." and ".."
// are dot segments: /v1/agents/./inbox becomes /v1/inbox) is refused at every
// entry point, so no item is stored where tooling can never read it; and
// property failures name their seed so they can be replayed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { mint, notesSvc } from "../fixtures/notes_svc.ts";
import { checkProperty } from "../fixtures/property_check.ts";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";

const DOT_SEGMENTS = [".", ".."];

describe("agentIds that a URL path would rewrite", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud();
  });
  after(() => t.close());

  for (const agentId of DOT_SEGMENTS) {
    test(`"${agentId}" is refused by POST /v1/events, alone and in a batch`, async () => {
      const one = await t.sdk("POST", "/v1/events", { body: { eventId: "e", type: "t", agentId, payload: {} } });
      assert.equal(one.status, 400);
      assert.equal(one.body.error.code, "VALIDATION_ERROR");
      const batch = await t.sdk("POST", "/v1/events/batch", {
        body: { events: [{ eventId: "e2", type: "t", agentId, payload: {} }] },
      });
      assert.equal(batch.status, 400);
    });

    test(`"${agentId}" is refused when minting at the cloud, as agentId or as the user id it defaults to`, async () => {
      for (const body of [{ userId: "alice", agentId }, { userId: agentId }]) {
        const res = await t.sdk("POST", "/v1/sdk/keys", { body: { name: "k", scopes: [], ...body } });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, "VALIDATION_ERROR");
      }
    });

    test(`"${agentId}" is refused by the hybrid mirror`, async () => {
      const res = await t.sdk("PUT", `/v1/sdk/keys/${crypto.randomUUID()}`, {
        body: {
          userId: agentId,
          name: "k",
          scopes: [],
          agentId,
          hash: "a".repeat(64),
          start: "svc_live_abc",
          createdAt: new Date().toISOString(),
          revokedAt: null,
        },
      });
      assert.equal(res.status, 400);
    });

    test(`"${agentId}" is refused by POST /svc/keys, as agentId or as the signed-in user's id`, async () => {
      const svc = notesSvc();
      try {
        await assert.rejects(mint(svc, "alice", [], { agentId }), /400/);
        await assert.rejects(mint(svc, agentId, []), /400/);
      } finally {
        await svc.close();
      }
    });
  }

  test("an agentId with slashes, percent signs or a question mark is reachable when encoded", async () => {
    for (const agentId of ["a/b", "a\\b", "100%", "what?", "#1", ".a", "a.."]) {
      const sent = await t.sdk("POST", "/v1/events", {
        body: { eventId: `e-${agentId}`, type: "t", agentId, payload: {} },
      });
      assert.equal(sent.status, 202, agentId);
      const inbox = await t.sdk("GET", `/v1/agents/${encodeURIComponent(agentId)}/inbox`);
      assert.equal(inbox.body.items.at(-1)?.agentId, agentId);
    }
  });
});

describe("property checks", () => {
  test("name the seed of a failure so it can be replayed", async () => {
    const failing = fc.asyncProperty(fc.constant(7), () => Promise.resolve(false));
    const error = await checkProperty(failing, 5).then(() => null, (e: Error) => e);
    assert.match(String(error?.message), /^property failed: replay with SVC_FC_SEED=\d+/);
  });
});
