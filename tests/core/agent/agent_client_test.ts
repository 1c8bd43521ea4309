import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentClient } from "../../../core/agent/mod.ts";
import type { InboxItem } from "../../../core/contract/mod.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

describe("AgentClient inbox", () => {
  let dir: string;
  let cloud: CloudServer;
  let n = 0;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-agent-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
  });
  after(async () => {
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newAgent(
    fetch?: (req: Request) => Promise<Response>,
  ): Promise<{ agent: AgentClient; agentId: string }> {
    const userId = `user${++n}`;
    const res = await cloud.sdk("POST", "/v1/sdk/keys", { userId, name: "k", scopes: [] });
    const { key, agentId } = await res.json();
    return { agent: new AgentClient({ key, cloudUrl: cloud.url, fetch }), agentId };
  }
  async function emit(agentId: string, count: number): Promise<void> {
    const events = Array.from({ length: count }, (_, i) => ({
      eventId: crypto.randomUUID(),
      type: "t",
      agentId,
      payload: { i },
    }));
    assert.equal((await cloud.sdk("POST", "/v1/events/batch", { events })).status, 202);
  }

  test("leaves an item unacknowledged when the loop body throws, and it comes back", async () => {
    const { agent, agentId } = await newAgent();
    await emit(agentId, 2);
    const handled: number[] = [];
    await assert.rejects(async () => {
      for await (const item of agent.inbox({ wait: 0 })) {
        if (item.payload.i === 1) throw new Error("handler failed");
        handled.push(item.payload.i as number);
      }
    }, /handler failed/);
    assert.deepEqual(handled, [0]);
    const { items } = await agent.poll();
    assert.deepEqual(items.map((i) => i.payload.i), [1], "the first was acknowledged, the failed one is back");
    assert.equal(items[0].deliveries, 2);
  });

  test("resumes from the cursor it reported, across a restart, without losing an item", async () => {
    const { agent, agentId } = await newAgent();
    await emit(agentId, 3);
    let saved = 0;
    const first = new AbortController();
    const got: InboxItem[] = [];
    for await (const item of agent.inbox({ signal: first.signal, wait: 0, onCursor: (c) => (saved = c) })) {
      got.push(item);
      if (got.length === 2) first.abort();
    }
    assert.equal(saved, got[1].inboxId, "the reported cursor covers both handled items");
    await emit(agentId, 1);
    const second = new AbortController();
    const after: number[] = [];
    for await (const item of agent.inbox({ signal: second.signal, cursor: saved, wait: 0 })) {
      after.push(item.payload.i as number);
      if (after.length === 2) second.abort();
    }
    assert.deepEqual(after, [2, 0], "the third event of the first batch, then the new one");
  });

  test("waits on a long poll and gets an event emitted meanwhile", async () => {
    const { agent, agentId } = await newAgent();
    const stop = new AbortController();
    const emitted = waitFor("the agent's poll to be held", () => cloud.heldPolls() === 1).then(() => emit(agentId, 1));
    for await (const item of agent.inbox({ signal: stop.signal, wait: 5 })) {
      assert.equal(item.payload.i, 0);
      stop.abort();
    }
    await emitted;
  });

  test("backs off and keeps going while the cloud is down", async () => {
    let failed = 0;
    const { agent, agentId } = await newAgent((req) => fetch(req).catch((error) => (failed++, Promise.reject(error))));
    await cloud.stop();
    const back = waitFor("three failed attempts while the cloud is down", () => failed >= 3).then(async () => {
      await cloud.start();
      await emit(agentId, 1);
    });
    const stop = new AbortController();
    for await (const item of agent.inbox({ signal: stop.signal, wait: 1, retryMinMs: 20, retryMaxMs: 100 })) {
      assert.equal(item.type, "t");
      stop.abort();
    }
    await back;
  });

  test("stops with the error when the key is refused", async () => {
    const agent = new AgentClient({ key: `svc_live_${"q".repeat(40)}`, cloudUrl: cloud.url });
    await assert.rejects(async () => {
      for await (const _ of agent.inbox({ wait: 0 })) break;
    }, { code: "UNAUTHORIZED" });
  });

  test("inbox({ untilEmpty: true }) handles everything waiting, acknowledges it, then ends", async () => {
    const { agent, agentId } = await newAgent();
    await emit(agentId, 5);
    const seen: unknown[] = [];
    for await (const item of agent.inbox({ wait: 0, limit: 2, untilEmpty: true })) seen.push(item.payload.i);
    assert.deepEqual(seen, [0, 1, 2, 3, 4], "three pages of two, the last one short");
    assert.deepEqual((await agent.poll()).items, [], "all five were acknowledged");
  });

  test("aborting the signal inside the loop body ends the loop with that item acknowledged", async () => {
    const { agent, agentId } = await newAgent();
    await emit(agentId, 2);
    const stop = new AbortController();
    for await (const _ of agent.inbox({ signal: stop.signal, wait: 0 })) stop.abort();
    assert.deepEqual((await agent.poll()).items.map((item) => item.payload.i), [1], "only the first was handled");
  });

  test("a break leaves the current item for next time (for await closes alike on break and on a throw)", async () => {
    const { agent, agentId } = await newAgent();
    await emit(agentId, 2);
    for await (const _ of agent.inbox({ wait: 0 })) break;
    const { items } = await agent.poll();
    assert.deepEqual(items.map((item) => [item.payload.i, item.deliveries]), [[0, 2], [1, 2]]);
  });

  test("throws a typed error carrying the contract's code", async () => {
    const agent = new AgentClient({ key: `svc_live_${"q".repeat(40)}`, cloudUrl: cloud.url });
    await assert.rejects(agent.ack([1]), (e: Error & { code?: string; status?: number }) => {
      return e.name === "SvcError" && e.code === "UNAUTHORIZED" && e.status === 401;
    });
  });
});

describe("AgentClient when a server cannot be reached", () => {
  test("run(), intents(), poll() and ack() throw SvcError UNREACHABLE when nothing listens", async () => {
    // A port that was just free: bind one, note it, release it.
    const probe = await startCloudServer(":memory:");
    const down = probe.url;
    await probe.stop();
    const agent = new AgentClient({ key: `svc_live_${"q".repeat(40)}`, appUrl: down, cloudUrl: down });
    for (const call of [() => agent.run("x"), () => agent.intents(), () => agent.poll(), () => agent.ack([1])]) {
      await assert.rejects(call(), (e: Error & { code?: string; status?: number }) => {
        assert.equal(e.name, "SvcError");
        assert.equal(e.code, "UNREACHABLE");
        assert.equal(e.status, 503);
        assert.ok(e.message.startsWith(`${down} cannot be reached (`), e.message);
        return true;
      });
    }
  });

  test("a timeout is UNREACHABLE too, while the caller's own abort stays an AbortError", async () => {
    // A server that never answers: the request ends only when its signal aborts.
    const hanging = (req: Request) =>
      new Promise<Response>((_, reject) => req.signal.addEventListener("abort", () => reject(req.signal.reason)));
    const slow = new AgentClient({ key: "svc_live_x", appUrl: "http://app.invalid", fetch: hanging, timeoutMs: 50 });
    await assert.rejects(slow.run("x"), {
      code: "UNREACHABLE",
      message: "http://app.invalid cannot be reached (no answer within 50 ms)",
    });
    const client = new AgentClient({ key: "svc_live_x", cloudUrl: "http://cloud.invalid", fetch: hanging });
    const stop = new AbortController();
    const polling = client.poll({ signal: stop.signal });
    stop.abort();
    await assert.rejects(polling, { name: "AbortError" });
  });
});
