// Issue 13, finding 14: the fallback `onAgentIntent` gets the payload as a
// plain, sanitised object (no own `__proto__` key at any depth), as
// zod-validated handlers do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mint, notesSvc } from "../../fixtures/notes_svc.ts";

function hasOwnProto(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Object.hasOwn(value, "__proto__")) return true;
  return Object.values(value).some(hasOwnProto);
}

test("onAgentIntent receives a payload without own __proto__ keys, at any depth", async () => {
  const seen: Record<string, unknown>[] = [];
  const svc = notesSvc({
    onAgentIntent: (_intent, payload) => {
      seen.push(payload);
      return { ok: true };
    },
  });
  try {
    const { key } = await mint(svc, "alice", []);
    const body =
      '{"intent":"x.y","payload":{"__proto__":{"admin":true},"a":{"__proto__":{"b":1},"c":[{"__proto__":2}]}}}';
    const res = await svc.handle(
      new Request("http://app.test/svc/agent/run", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      }),
    );
    assert.equal(res.status, 200);
    assert.equal(seen.length, 1);
    assert.equal(hasOwnProto(seen[0]), false);
    assert.deepEqual(JSON.parse(JSON.stringify(seen[0])), { a: { c: [{}] } });
    assert.equal(Object.getPrototypeOf(seen[0]), Object.prototype);
    assert.equal((seen[0] as { admin?: unknown }).admin, undefined);
  } finally {
    await svc.close();
  }
});
