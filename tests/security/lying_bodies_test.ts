// Bodies that lie, sent over a real socket with a raw TCP client (fetch will
// not send them): a Content-Length shorter or longer than the body, a broken
// one, both Content-Length and chunked, and a key written twice. The answer is
// never a 5xx, nothing is stored, and the server keeps serving.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, createClient } from "@libsql/client";
import type { RunningServer } from "../../core/http/mod.ts";
import type { Svc } from "../../mod.ts";
import { mint, notesSvc, run } from "../fixtures/notes_svc.ts";
import { listen } from "../fixtures/servers.ts";
import { rawRequest } from "../fixtures/raw_http.ts";
import { rowCounts } from "../fixtures/input_oracle.ts";

describe("bodies that lie about themselves", () => {
  let svc: Svc;
  let client: Client;
  let server: RunningServer;
  let readKey = "";
  before(async () => {
    client = createClient({ url: ":memory:" });
    // A run's activity record is kept whatever its body: what this test counts is the body, never stored.
    svc = notesSvc({ storage: client, activity: false });
    readKey = (await mint(svc, "alice", ["notes:read"])).key;
    server = await listen(svc.handle);
  });
  after(async () => {
    await server.close();
    await svc.close();
    client.close();
  });

  const head = (path: string, extra: string[]) =>
    [`POST ${path} HTTP/1.1`, "host: 127.0.0.1", "x-user: alice", "content-type: application/json", ...extra].join(
      "\r\n",
    );
  const keyBody = JSON.stringify({ name: "lie", scopes: [] });

  /**
   * Sends a lie to POST /svc/keys and checks that no key was stored and the server still answers. A server may wait
   * for the rest of a body that never comes: no answer within `quietMs` is status 0, which the callers accept.
   */
  async function lie(extra: string[], body: string, quietMs = 200): Promise<number> {
    const before = await rowCounts(client);
    const answer = await rawRequest(server.port, head("/svc/keys", extra), body, quietMs, undefined, quietMs);
    assert.ok(answer.status < 500, answer.text.slice(0, 300));
    if (answer.status >= 400 && answer.body !== null) assert.equal(answer.body.ok, false);
    if (answer.status !== 201) assert.equal(await rowCounts(client), before, "nothing stored");
    assert.equal((await run(svc, readKey, "notes.list")).status, 200, "still serving");
    return answer.status;
  }

  test("a Content-Length shorter than the body is read as a truncated body: 400", async () => {
    const answer = await rawRequest(server.port, head("/svc/keys", ["content-length: 10"]), keyBody);
    assert.equal(answer.status, 400);
    // Node's parser may answer the leftover bytes (a second, malformed request) before the handler answers.
    if (answer.body !== null) assert.equal(answer.body.error.code, "INVALID_JSON");
    await lie(["content-length: 10"], keyBody);
  });

  test("a Content-Length longer than the body is never answered with a 5xx or stored", async () => {
    const status = await lie([`content-length: ${keyBody.length + 50}`], keyBody, 300);
    assert.ok(status === 0 || (status >= 400 && status < 500), `answered ${status}`);
  });

  test("a malformed or negative Content-Length is refused by the server", async () => {
    for (const value of ["abc", "-1", "1e3", "10, 20"]) {
      const status = await lie([`content-length: ${value}`], keyBody);
      assert.ok(status === 0 || (status >= 400 && status < 500), `${value}: answered ${status}`);
    }
  });

  test("Content-Length together with chunked encoding is not smuggled into a second request", async () => {
    const smuggled =
      `0\r\n\r\nPOST /svc/keys HTTP/1.1\r\nhost: x\r\nx-user: mallory\r\ncontent-type: application/json\r\n` +
      `content-length: ${keyBody.length}\r\n\r\n${keyBody}`;
    await lie([`content-length: 4`, "transfer-encoding: chunked"], smuggled);
    const mallory = await svc.handle(new Request("http://app.test/svc/keys", { headers: { "x-user": "mallory" } }));
    assert.deepEqual((await mallory.json()).keys, [], "no key minted for the smuggled request");
  });

  test("a key written twice is checked and used as the same value (the last one)", async () => {
    const body = '{"intent":"notes.list","intent":"admin.wipe","payload":{"confirm":true}}';
    const answer = await rawRequest(
      server.port,
      [
        "POST /svc/agent/run HTTP/1.1",
        "host: 127.0.0.1",
        `authorization: Bearer ${readKey}`,
        "content-type: application/json",
        `content-length: ${body.length}`,
      ].join("\r\n"),
      body,
    );
    assert.equal(answer.status, 403, "the scopes of admin.wipe were checked");
    assert.equal(answer.body.error.code, "FORBIDDEN_SCOPE");
  });
});
