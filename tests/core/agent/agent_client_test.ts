import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentClient, type InboxItem } from "../../../core/agent/agent_client.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";

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

  async function newAgent(): Promise<{ agent: AgentClient; agentId: string }> {
    const userId = `user${++n}`;
    const res = await cloud.sdk("POST", "/v1/sdk/keys", { userId, name: "k", scopes: [] });
    const { key, agentId } = await res.json();
    return { agent: new AgentClient({ key, cloudUrl: cloud.url }), agentId };
  }
  async function emit(agentId: string, count: number): Promise<void> {
    const events = Array.from({ length: count }, (_, i) => ({
      eventId: crypto.randomUUID(),
      type: "t",
      agentId,
      payload: { i },
    }));
    assert.equal((await cloud.sdk("POST", "/v1/events", { events })).status, 202);
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
    const later = setTimeout(() => emit(agentId, 1), 100);
    for await (const item of agent.inbox({ signal: stop.signal, wait: 5 })) {
      assert.equal(item.payload.i, 0);
      stop.abort();
    }
    clearTimeout(later);
  });

  test("backs off and keeps going while the cloud is down", async () => {
    const { agent, agentId } = await newAgent();
    await cloud.stop();
    setTimeout(async () => {
      await cloud.start();
      await emit(agentId, 1);
    }, 200);
    const stop = new AbortController();
    for await (const item of agent.inbox({ signal: stop.signal, wait: 1, retryMinMs: 20, retryMaxMs: 100 })) {
      assert.equal(item.type, "t");
      stop.abort();
    }
  });

  test("stops with the error when the key is refused", async () => {
    const agent = new AgentClient({ key: `svc_live_${"q".repeat(40)}`, cloudUrl: cloud.url });
    await assert.rejects(async () => {
      for await (const _ of agent.inbox({ wait: 0 })) break;
    }, { code: "UNAUTHORIZED" });
  });

  test("throws a typed error carrying the contract's code", async () => {
    const agent = new AgentClient({ key: `svc_live_${"q".repeat(40)}`, cloudUrl: cloud.url });
    await assert.rejects(agent.ack([1]), (e: Error & { code?: string; status?: number }) => {
      return e.name === "SvcError" && e.code === "UNAUTHORIZED" && e.status === 401;
    });
  });
});
