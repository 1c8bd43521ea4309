// Issue 13, finding 11: a secret-shaped token is redacted wherever it stands,
// glued to a word character or not: in answers (including MCP's unknown-tool
// error), in stored violations and in log lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { redactSecrets } from "../../core/contract/mod.ts";
import type { Svc } from "../../mod.ts";
import { BASE, mint, notesSvc, run } from "../fixtures/notes_svc.ts";
import { connectMcp } from "../fixtures/mcp_client.ts";

const BODY = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd";
const KEY = `svc_live_${BODY}`;
const SECRET = `svcs_${BODY}`;

test("redactSecrets removes a key or secret glued to letters, digits or underscores on either side", () => {
  for (const text of [KEY, `x${KEY}`, `_${KEY}`, `9${KEY}z`, `a${SECRET}_b`, `"${KEY}"`, `${KEY}${SECRET}`]) {
    const redacted = redactSecrets(text);
    assert.ok(!redacted.includes(BODY.slice(0, 8)), `${text} → ${redacted}`);
  }
  assert.equal(redactSecrets(`x${KEY}`), "xsvc_live_…");
});

test("an intent named with a glued key is echoed and stored redacted", async () => {
  const logged: string[] = [];
  const svc = notesSvc({ logger: (message) => logged.push(message) });
  try {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    for (const intent of [`x${KEY}`, `_${KEY}`]) {
      const res = await run(svc, key, intent);
      assert.equal(res.status, 404);
      assert.ok(!(await res.text()).includes(BODY.slice(0, 8)), "the answer");
    }
    const stored = JSON.stringify(await svc.violations({ keyId: id }));
    assert.ok(stored.includes("svc_live_…"));
    assert.ok(!stored.includes(BODY.slice(0, 8)), "the stored violations");
    assert.ok(!logged.join("\n").includes(BODY.slice(0, 8)), "the log");
  } finally {
    await svc.close();
  }
});

test("a run the fallback answers echoes its intent name with any key redacted", async () => {
  const svc = notesSvc({ onAgentIntent: (intent) => ({ handled: intent.length }) });
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    for (const intent of [KEY, `x${KEY}`, `do.${SECRET}.now`]) {
      const res = await run(svc, key, intent);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(!text.includes(BODY.slice(0, 8)), text);
      assert.equal(JSON.parse(text).intent, redactSecrets(intent));
    }
  } finally {
    await svc.close();
  }
});

test("MCP's error for an unknown tool does not echo a key in the tool name", async () => {
  const svc: Svc = notesSvc();
  const { key } = await mint(svc, "alice", ["notes:read"]);
  const client = await connectMcp(BASE, key, (url, init) => svc.handle(new Request(url, init)));
  try {
    for (const name of [KEY, `x${KEY}`]) {
      const error = await client.callTool({ name, arguments: {} }).then(() => null, (e: Error) => e);
      assert.ok(error !== null, "an unknown tool is a protocol error");
      assert.ok(!error.message.includes(BODY.slice(0, 8)), error.message);
    }
  } finally {
    await client.close();
    await svc.close();
  }
});

test("a failing handler's error that holds a key reaches the log redacted", async () => {
  const logged: string[] = [];
  const svc = notesSvc({
    logger: (message, cause) => logged.push(`${message} ${String(cause)} ${(cause as Error)?.stack ?? ""}`),
    onAgentIntent: () => {
      throw new Error(`upstream refused token ${KEY}`);
    },
  });
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await run(svc, key, "other.intent")).status, 500);
    assert.ok(logged.length > 0);
    assert.ok(!logged.join("\n").includes(BODY.slice(0, 8)), logged.join("\n"));
  } finally {
    await svc.close();
  }
});

test("a failing handler's error whose cause holds a key reaches the log with the cause redacted", async () => {
  const causes: string[] = [];
  const svc = notesSvc({
    logger: (_message, cause) => {
      for (let c = cause, i = 0; c instanceof Error && i < 10; c = c.cause, i++) causes.push(`${c.message} ${c.stack}`);
    },
    onAgentIntent: () => {
      throw new Error("upstream failed", { cause: new Error("refused", { cause: new Error(`token ${KEY}`) }) });
    },
  });
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await run(svc, key, "other.intent")).status, 500);
    assert.equal(causes.length, 3, "the whole chain is logged");
    assert.ok(causes[2].includes("token svc_live_…"), causes[2]);
    assert.ok(!causes.join("\n").includes(BODY.slice(0, 8)), causes.join("\n"));
  } finally {
    await svc.close();
  }
});
