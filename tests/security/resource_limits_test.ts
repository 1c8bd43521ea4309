// OWASP API4: the body limit holds while reading (a 100 MB body is refused
// without being buffered), and batches, ids, strings, metadata and payloads
// are bounded by the schemas.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RunningServer } from "../../core/http/mod.ts";
import { DEFAULT_BODY_LIMIT } from "../../core/http/mod.ts";
import type { Svc } from "../../mod.ts";
import { BASE, mint, notesSvc, run, SCOPES } from "../fixtures/notes_svc.ts";
import { listen } from "../fixtures/servers.ts";
import { event, startTestCloud, type TestCloud, violation } from "../fixtures/test_cloud.ts";
import { rawRequest, streamHugeBody } from "../fixtures/raw_http.ts";

const HUNDRED_MB = 100 * 1024 * 1024;
const CHUNK = 64 * 1024;

/** A 100 MB body of spaces produced on demand, counting how much the server pulled. */
function countedBody(): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(CHUNK).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= HUNDRED_MB) return controller.close();
      pulled += CHUNK;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => pulled };
}

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
const deepText = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("the body limit", () => {
  let t: TestCloud;
  let svc: Svc;
  let key: string;
  let server: RunningServer;
  before(async () => {
    t = await startTestCloud();
    svc = notesSvc();
    key = (await mint(svc, "alice", [...SCOPES])).key;
    server = await listen(svc.handle);
  });
  after(async () => {
    await server.close();
    await svc.close();
    await t.close();
  });

  test("refuses a streamed 100 MB body to /svc/agent/run after reading little more than 1 MiB", async () => {
    const { stream, pulled } = countedBody();
    const res = await svc.handle(
      new Request(`${BASE}/svc/agent/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error.code, "PAYLOAD_TOO_LARGE");
    assert.ok(pulled() <= DEFAULT_BODY_LIMIT + 4 * CHUNK, `pulled ${pulled()} bytes`);
  });

  test("refuses a streamed 100 MB body to /v1/events after reading little more than 1 MiB", async () => {
    const { stream, pulled } = countedBody();
    const res = await t.cloud.handle(
      new Request("http://cloud.test/v1/events", {
        method: "POST",
        headers: {
          authorization: `Bearer ${t.project.secret}`,
          "x-svc-project": t.project.id,
          "content-type": "application/json",
        },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(res.status, 413);
    assert.ok(pulled() <= DEFAULT_BODY_LIMIT + 4 * CHUNK, `pulled ${pulled()} bytes`);
  });

  test("stops taking a chunked 100 MB upload over a real socket long before it ends", async () => {
    const upload = () =>
      streamHugeBody(server.port, "/svc/agent/run", {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
      }, HUNDRED_MB);
    // The server answers, ends its side and closes with the rest of the upload unread: the kernel resets the
    // connection. Bun's node:net, starved by a loaded machine until the answer and the reset are both in, flushes the
    // write it holds first (EPIPE) and destroys the socket with the answer unread (status 0; seen in 3% of uploads
    // under 2 CPU hogs). Node reads first. An answer lost so is asked for again, a few times at most.
    let { answer, sent } = await upload();
    for (let tries = 1; answer.status === 0 && tries < 5; tries++) ({ answer, sent } = await upload());
    assert.equal(answer.status, 413, answer.text.slice(0, 300));
    assert.equal(answer.body?.error?.code, "PAYLOAD_TOO_LARGE");
    // What the client could push is the limit plus the kernel's socket buffers, not 100 MB.
    assert.ok(sent < 32 * 1024 * 1024, `the client pushed ${sent} bytes`);
  });

  test("refuses a declared Content-Length of 100 MB before any of the body arrives", async () => {
    const answer = await rawRequest(
      server.port,
      [
        "POST /svc/agent/run HTTP/1.1",
        "host: 127.0.0.1",
        `authorization: Bearer ${key}`,
        "content-type: application/json",
        `content-length: ${HUNDRED_MB}`,
      ].join("\r\n"),
    );
    assert.equal(answer.status, 413);
    assert.equal(answer.body?.error?.code, "PAYLOAD_TOO_LARGE");
  });
});

describe("the schema limits", () => {
  let t: TestCloud;
  let svc: Svc;
  let key: string;
  before(async () => {
    t = await startTestCloud();
    svc = notesSvc({ onAgentIntent: () => ({ ok: true }) });
    key = (await mint(svc, "alice", [...SCOPES])).key;
  });
  after(async () => {
    await svc.close();
    await t.close();
  });

  const refused = async (method: string, path: string, body: unknown) => {
    const res = await t.sdk(method, path, { body });
    assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    return res.body.error.details.issues;
  };
  const accepted = async (method: string, path: string, body: unknown) => {
    const res = await t.sdk(method, path, { body });
    assert.ok(res.status < 300, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
  };

  test("a batch holds at most 500 events and an acknowledgement 1..500 ids", async () => {
    const events = Array.from({ length: 501 }, (_, i) => event(`b${i}`, "bob"));
    await refused("POST", "/v1/events/batch", { events });
    await accepted("POST", "/v1/events/batch", { events: events.slice(0, 500) });
    await refused("POST", "/v1/agents/bob/ack", { inboxIds: Array.from({ length: 501 }, (_, i) => i + 1) });
    await refused("POST", "/v1/agents/bob/ack", { inboxIds: [] });
    await refused("POST", "/v1/agents/bob/ack", { inboxIds: [1.5] });
  });

  test("ids and names are at most 200 characters of well-formed Unicode without NUL", async () => {
    await refused("POST", "/v1/events", event("x".repeat(201), "bob"));
    await refused("POST", "/v1/events", event("e", "b".repeat(201)));
    await refused("POST", "/v1/events", event("\ud800", "bob"));
    await refused("POST", "/v1/events", event("e", "bob\u0000x"));
    await refused("POST", "/v1/sdk/keys", { userId: "u", name: "\udc00", scopes: [] });
    await accepted("POST", "/v1/events", event("\ud83d\ude00 ok", "bob"));
  });

  test("violation metadata is at most 16 KiB and 10 levels deep", async () => {
    await refused("POST", "/v1/sdk/violations", { violation: violation({ metadata: { s: "x".repeat(16 * 1024) } }) });
    await accepted("POST", "/v1/sdk/violations", { violation: violation({ metadata: { s: "x".repeat(16_000) } }) });
    await refused("POST", "/v1/sdk/violations", { violation: violation({ metadata: nested(11) }) });
    await accepted("POST", "/v1/sdk/violations", { violation: violation({ metadata: nested(10) }) });
  });

  test("an event payload is at most 64 KiB and 32 levels deep", async () => {
    await refused("POST", "/v1/events", event("big", "bob", { payload: { s: "x".repeat(64 * 1024) } }));
    await refused("POST", "/v1/events", event("deep", "bob", { payload: nested(33) }));
    await accepted("POST", "/v1/events", event("fits", "bob", { payload: nested(32) }));
  });

  test("a value nested 200,000 levels deep is a 400, not a stack overflow", async () => {
    const deep = deepText(200_000);
    const bodies: [string, string, string][] = [
      ["POST", "/v1/events", `{"eventId":"d","type":"t","agentId":"bob","payload":{"a":${deep}}}`],
      [
        "POST",
        "/v1/sdk/violations",
        `{"violation":${JSON.stringify(violation()).slice(0, -1)},"metadata":{"a":${deep}}}}`,
      ],
      [
        "PUT",
        "/v1/sdk/intents",
        `{"intents":[{"name":"a","title":"","requiredScopes":[],"input":{"a":${deep}},"output":{}}]}`,
      ],
    ];
    for (const [method, path, body] of bodies) {
      const res = await t.sdk(method, path, { body });
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
    }
    const res = await svc.handle(
      new Request(`${BASE}/svc/agent/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: `{"intent":"anything","payload":{"a":${deep}}}`,
      }),
    );
    assert.equal(res.status, 400);
    assert.equal((await run(svc, key, "anything", nested(63))).status, 200);
  });
});
