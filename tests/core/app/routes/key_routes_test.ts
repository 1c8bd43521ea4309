import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { asAgent, asUser, errorOf, mint, notesSvc, run } from "../../../fixtures/notes_svc.ts";

describe("POST /svc/keys", () => {
  const svc = notesSvc();
  after(() => svc.close());

  test("mints a key for the signed-in user and shows it once", async () => {
    const res = await asUser(svc, "alice", "POST", "/svc/keys", { name: "laptop agent", scopes: ["notes:read"] });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ["agentId", "createdAt", "id", "key", "name", "scopes"]);
    assert.match(body.key, /^svc_live_[0-9A-Za-z]{32,}$/);
    assert.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(body.agentId, "alice");
    assert.deepEqual(body.scopes, ["notes:read"]);
    assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
    const list = await (await asUser(svc, "alice", "GET", "/svc/keys")).text();
    assert.ok(!list.includes(body.key), "the plaintext key never appears in a listing");
  });

  test("refuses a signed-out caller with 401 UNAUTHORIZED", async () => {
    const res = await asUser(svc, null, "POST", "/svc/keys", { name: "x", scopes: [] });
    assert.equal(res.status, 401);
    assert.equal((await errorOf(res)).code, "UNAUTHORIZED");
  });

  test("refuses a scope the app does not support with 400 VALIDATION_ERROR naming it", async () => {
    const res = await asUser(svc, "alice", "POST", "/svc/keys", { name: "x", scopes: ["notes:read", "root"] });
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.deepEqual(error.details, { issues: [{ path: "scopes.1", message: 'Unknown scope "root"' }] });
  });

  test("refuses a body of the wrong shape with the issues listed", async () => {
    for (
      const body of [{ scopes: [] }, { name: "", scopes: [] }, { name: "x".repeat(101), scopes: [] }, {
        name: "x",
        scopes: "a",
      }]
    ) {
      const res = await asUser(svc, "alice", "POST", "/svc/keys", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const error = await errorOf(res);
      assert.equal(error.code, "VALIDATION_ERROR");
      assert.ok(Array.isArray((error.details as { issues: unknown[] }).issues));
    }
  });

  test("refuses a body that is not JSON with 400 INVALID_JSON", async () => {
    const res = await svc.handle(
      new Request("http://app.test/svc/keys", {
        method: "POST",
        headers: { "x-user": "alice", "content-type": "application/json" },
        body: "{name:",
      }),
    );
    assert.equal(res.status, 400);
    assert.equal((await errorOf(res)).code, "INVALID_JSON");
  });

  test("refuses a body sent as text/plain with 400 INVALID_JSON", async () => {
    const res = await svc.handle(
      new Request("http://app.test/svc/keys", {
        method: "POST",
        headers: { "x-user": "alice", "content-type": "text/plain" },
        body: JSON.stringify({ name: "x", scopes: [] }),
      }),
    );
    assert.equal((await errorOf(res)).code, "INVALID_JSON");
  });

  test("refuses a signed-in user id over 200 characters, which the cloud could not store", async () => {
    const res = await asUser(svc, "u".repeat(201), "POST", "/svc/keys", { name: "x", scopes: [] });
    assert.equal(res.status, 400);
    assert.equal((await errorOf(res)).code, "VALIDATION_ERROR");
  });

  test("does not revoke earlier keys when minting a new one", async () => {
    const first = await mint(svc, "bob", ["notes:read"]);
    await mint(svc, "bob", ["notes:read"]);
    assert.equal((await run(svc, first.key, "notes.list")).status, 200);
  });

  test("lets a user claim an agt_ agentId and reuse it, but not another user", async () => {
    const agentId = `agt_${crypto.randomUUID()}`;
    assert.equal((await mint(svc, "carol", [], { agentId })).agentId, agentId);
    assert.equal((await mint(svc, "carol", [], { agentId })).agentId, agentId);
    const res = await asUser(svc, "dave", "POST", "/svc/keys", { name: "x", scopes: [], agentId });
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.equal((error.details as { issues: { path: string }[] }).issues[0].path, "agentId");
    const keys = await (await asUser(svc, "dave", "GET", "/svc/keys")).json();
    assert.equal(keys.keys.length, 0, "nothing was stored for the refused mint");
  });

  test("refuses another user's id and the shared inbox unless the config allows it", async () => {
    for (const agentId of ["alice", "default", "agt_not-a-uuid"]) {
      const res = await asUser(svc, "erin", "POST", "/svc/keys", { name: "x", scopes: [], agentId });
      assert.equal(res.status, 400, agentId);
    }
    const shared = notesSvc({ sharedInbox: true });
    assert.equal((await mint(shared, "erin", [], { agentId: "default" })).agentId, "default");
    await shared.close();
  });
});

describe("GET /svc/keys", () => {
  const svc = notesSvc();
  after(() => svc.close());

  test("lists only the signed-in user's keys, with start and no secret", async () => {
    const minted = await mint(svc, "alice", ["notes:read", "notes:write"]);
    await mint(svc, "bob", []);
    const res = await asUser(svc, "alice", "GET", "/svc/keys");
    assert.equal(res.status, 200);
    const { keys } = await res.json();
    assert.equal(keys.length, 1);
    assert.deepEqual(Object.keys(keys[0]).sort(), [
      "agentId",
      "createdAt",
      "expiresAt",
      "id",
      "lastUsedAt",
      "name",
      "revokedAt",
      "revokesAt",
      "scopes",
      "start",
    ]);
    assert.equal(keys[0].id, minted.id);
    assert.equal(keys[0].start, minted.key.slice(0, 12));
    assert.equal(keys[0].lastUsedAt, null);
    assert.equal(keys[0].revokedAt, null);
    assert.equal(keys[0].expiresAt, null, "a key minted by hand never expires");
  });

  test("refuses a signed-out caller with 401", async () => {
    assert.equal((await asUser(svc, null, "GET", "/svc/keys")).status, 401);
  });
});

describe("DELETE /svc/keys/:id", () => {
  const svc = notesSvc();
  after(() => svc.close());

  test("revokes the key, effective on the next request", async () => {
    const { id, key } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await run(svc, key, "notes.list")).status, 200);
    const res = await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.equal(body.id, id);
    assert.ok(!Number.isNaN(Date.parse(body.revokedAt)));
    assert.equal((await run(svc, key, "notes.list")).status, 401);
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.equal(keys[0].revokedAt, body.revokedAt);
  });

  test("answers a second revoke with the first revocation time", async () => {
    const { id } = await mint(svc, "alice", []);
    const first = await (await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`)).json();
    const second = await (await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`)).json();
    assert.equal(second.revokedAt, first.revokedAt);
  });

  test("answers 404 for another user's key and leaves it working", async () => {
    const { id, key } = await mint(svc, "bob", ["notes:read"]);
    const res = await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`);
    assert.equal(res.status, 404);
    assert.equal((await errorOf(res)).code, "NOT_FOUND");
    assert.equal((await run(svc, key, "notes.list")).status, 200);
  });

  test("answers 404 for an unknown id, UUID or not", async () => {
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${crypto.randomUUID()}`)).status, 404);
    const res = await asUser(svc, "alice", "DELETE", "/svc/keys/nope");
    assert.equal(res.status, 404);
    assert.equal((await errorOf(res)).code, "NOT_FOUND");
  });

  test("refuses an agent key in place of a signed-in user", async () => {
    const { id, key } = await mint(svc, "alice", []);
    assert.equal((await asAgent(svc, key, "DELETE", `/svc/keys/${id}`)).status, 401);
  });
});

describe("key storage", () => {
  test("stores only the SHA-256 of a key, never its plaintext", async () => {
    const client = createClient({ url: ":memory:" });
    const svc = notesSvc({ storage: client });
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const rows = await client.execute("SELECT * FROM app_keys");
    const dump = JSON.stringify(rows.rows);
    assert.ok(!dump.includes(key));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
    const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    assert.equal(rows.rows[0].hash, hex);
    await svc.close();
    client.close();
  });

  test("keeps lastUsedAt to the minute without a write per request", async () => {
    const client = createClient({ url: ":memory:" });
    // Observe (not replace) the real client: count statements that write last_used_at.
    let touches = 0;
    const observed = new Proxy(client, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== "batch" && prop !== "execute") return typeof value === "function" ? value.bind(target) : value;
        return (stmts: unknown, ...rest: unknown[]) => {
          if (JSON.stringify(stmts).includes("last_used_at = ?")) touches++;
          return value.call(target, stmts, ...rest);
        };
      },
    });
    const startedAt = new Date().toISOString();
    const svc = notesSvc({ storage: observed });
    const { key } = await mint(svc, "alice", ["notes:read"]);
    for (let i = 0; i < 20; i++) assert.equal((await run(svc, key, "notes.list")).status, 200);
    await svc.close(); // flushes pending uses
    assert.equal(touches, 1, "twenty uses within a minute cost one write");
    const rows = await client.execute("SELECT last_used_at FROM app_keys");
    const lastUsedAt = String(rows.rows[0].last_used_at);
    assert.ok(startedAt <= lastUsedAt && lastUsedAt <= new Date().toISOString(), `${lastUsedAt} is one of the uses`);
    client.close();
  });
});
