// Issue 13, finding 2: a limit on refused attempts per source address. Past N
// refused credentials (401) from one address, its refused credentials get 429
// RATE_LIMITED with Retry-After, on /svc (createSvc) and /v1 (createCloud);
// valid credentials from the same address are still served, so the clients
// behind one proxy's address never lock each other out (nor a hybrid app's
// revoke out of the cloud); another address, and a request with no known
// address, is unaffected. Then the same over real sockets through this
// runtime's adapter, which supplies the peer's address.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { withClientAddress } from "../../core/http/mod.ts";
import { DEFAULT_SVC_RATE_LIMITS } from "../../core/app/mod.ts";
import { DEFAULT_CLOUD_RATE_LIMITS } from "../../cloud/create_cloud.ts";
import type { Svc } from "../../core/app/mod.ts";
import { mint, notesSvc } from "../fixtures/notes_svc.ts";
import { startTestCloud } from "../fixtures/test_cloud.ts";
import { listen } from "../fixtures/servers.ts";
import { rawRequest } from "../fixtures/raw_http.ts";
import { runtime } from "../fixtures/runtime.ts";

const A = "198.51.100.7";
const B = "203.0.113.9";
const N = DEFAULT_SVC_RATE_LIMITS.refusalsPerAddress.limit;
/**
 * The clock of the services under test: held still, so no token comes back while a test spends its budget however
 * slowly the machine runs it (the budget refills with time).
 */
const STILL = Date.parse("2026-11-27T12:00:00.000Z");
const still = () => STILL;

/** POST /svc/agent/run with `key`, from `address`. */
function runFrom(svc: Svc, address: string | null, key: string): Promise<Response> {
  const req = new Request("http://app.test/svc/agent/run", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ intent: "notes.list" }),
  });
  return svc.handle(withClientAddress(req, address));
}

async function revokedKey(svc: Svc): Promise<{ id: string; key: string }> {
  const { id, key } = await mint(svc, "alice", ["notes:read"]);
  const res = await svc.handle(
    new Request(`http://app.test/svc/keys/${id}`, { method: "DELETE", headers: { "x-user": "alice" } }),
  );
  assert.equal(res.status, 200);
  return { id, key };
}

async function assertRateLimited(res: Response, what: string): Promise<void> {
  assert.equal(res.status, 429, what);
  assert.match(res.headers.get("retry-after") ?? "", /^[1-9]\d*$/, `${what}: Retry-After in whole seconds`);
  assert.equal(res.headers.get("content-type"), "application/json");
  const body = await res.json();
  assert.equal(body.ok, false);
  assert.equal(body.error.code, "RATE_LIMITED");
}

describe("refused agent keys per address on /svc", () => {
  test(`past ${N} refused keys from one address, its refused keys are 429 and its valid keys are served`, async () => {
    const svc = notesSvc({}, still);
    try {
      const revoked = await revokedKey(svc);
      const valid = await mint(svc, "bob", ["notes:read"]);
      for (let i = 0; i < N; i++) assert.equal((await runFrom(svc, A, revoked.key)).status, 401, `attempt ${i + 1}`);
      await assertRateLimited(await runFrom(svc, A, revoked.key), "the next refused key");
      await assertRateLimited(await runFrom(svc, A, "svc_live_unknown"), "an unknown key");
      assert.equal((await runFrom(svc, A, valid.key)).status, 200, "a valid key from the same address is served");
      assert.equal((await runFrom(svc, B, valid.key)).status, 200, "another address is unaffected");
      assert.equal((await runFrom(svc, B, revoked.key)).status, 401, "and still refused a revoked key with 401");
      const rows = await svc.violations({ keyId: revoked.id, limit: 200 });
      const counted = rows.reduce((n, r) => n + Number(r.metadata.repeats ?? 1), 0);
      assert.equal(counted, N + 2, "every use of the revoked key is counted");
      assert.ok(rows.length <= 2, `in one row per key and window (${rows.length} rows)`);
    } finally {
      await svc.close();
    }
  });

  test("requests with no known address, or with refusalsPerAddress false, are not limited by address", async () => {
    const svc = notesSvc();
    const off = notesSvc({ rateLimit: { refusalsPerAddress: false } });
    try {
      for (let i = 0; i < N + 20; i++) {
        assert.equal((await runFrom(svc, null, "svc_live_unknown")).status, 401);
        assert.equal((await runFrom(off, A, "svc_live_unknown")).status, 401);
      }
    } finally {
      await svc.close();
      await off.close();
    }
  });

  test("a signed-out user is the app's session, not a refused credential: it does not count", async () => {
    const svc = notesSvc({ rateLimit: { refusalsPerAddress: { limit: 2, windowMs: 60_000 } } });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await svc.handle(withClientAddress(new Request("http://app.test/svc/keys"), A));
        assert.equal(res.status, 401);
      }
      assert.equal((await runFrom(svc, A, "svc_live_unknown")).status, 401, "the address still has its budget");
    } finally {
      await svc.close();
    }
  });
});

describe("refused credentials per address on /v1", () => {
  const M = DEFAULT_CLOUD_RATE_LIMITS.refusalsPerAddress.limit;

  test(`past ${M} refused credentials from one address, /v1 answers its refusals 429 and serves its valid credentials`, async () => {
    const t = await startTestCloud({ now: still });
    const sdkFrom = (address: string, secret = t.project.secret) =>
      t.cloud.handle(withClientAddress(
        new Request("http://cloud.test/v1/sdk/intents", {
          headers: { authorization: `Bearer ${secret}`, "x-svc-project": t.project.id },
        }),
        address,
      ));
    const inboxFrom = (address: string, key: string) =>
      t.cloud.handle(withClientAddress(
        new Request("http://cloud.test/v1/agent/inbox", { headers: { authorization: `Bearer ${key}` } }),
        address,
      ));
    try {
      const { key, id } = await t.mintKey("u");
      assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${id}`)).status, 200);
      for (let i = 0; i < M; i++) {
        const res = i % 2 === 0 ? await inboxFrom(A, key) : await sdkFrom(A, `svcs_${"x".repeat(40)}`);
        assert.equal(res.status, 401, `attempt ${i + 1}`);
      }
      await assertRateLimited(await inboxFrom(A, key), "a revoked key from that address");
      await assertRateLimited(await sdkFrom(A, `svcs_${"y".repeat(40)}`), "a wrong secret from that address");
      assert.equal((await sdkFrom(A)).status, 200, "the project's valid credentials from that address are served");
      assert.equal((await sdkFrom(B)).status, 200, "another address is unaffected");
      assert.equal((await inboxFrom(B, key)).status, 401);
      const res = await t.sdk("GET", "/v1/sdk/intents"); // no address: not limited
      assert.equal(res.status, 200);
    } finally {
      await t.close();
    }
  });

  test("behind one proxy address, an agent flooding refused keys cannot hold back its key's revoke or anyone's poll", async () => {
    const t = await startTestCloud({ now: still });
    const proxy = "192.0.2.1";
    const from = (path: string, init: RequestInit) =>
      t.cloud.handle(withClientAddress(new Request(`http://cloud.test${path}`, init), proxy));
    const sdk = { authorization: `Bearer ${t.project.secret}`, "x-svc-project": t.project.id };
    try {
      const agent = await t.mintKey("mallory");
      const neighbour = await t.mintKey("alice");
      for (let i = 0; i < M + 50; i++) {
        const res = await from("/v1/agent/inbox", { headers: { authorization: `Bearer svc_live_guess${i}` } });
        assert.equal(res.status, i < M ? 401 : 429, `guess ${i + 1}`);
      }
      const poll = await from("/v1/agent/inbox", { headers: { authorization: `Bearer ${neighbour.key}` } });
      assert.equal(poll.status, 200, "another agent behind the same address still polls");
      const revoke = await from(`/v1/sdk/keys/${agent.id}`, { method: "DELETE", headers: sdk });
      assert.equal(revoke.status, 200, "the app's revoke of the flooding agent's key goes through");
      const after = await from("/v1/agent/inbox", { headers: { authorization: `Bearer ${agent.key}` } });
      await assertRateLimited(after, "and the revoked key is refused (429, past the address's budget)");
    } finally {
      await t.close();
    }
  });

  test("rateLimit.refusalsPerAddress false turns the limit off", async () => {
    const t = await startTestCloud({ rateLimit: { refusalsPerAddress: false } });
    try {
      for (let i = 0; i < M + 20; i++) {
        const req = new Request("http://cloud.test/v1/agent/inbox", {
          headers: { authorization: "Bearer svc_live_x" },
        });
        assert.equal((await t.cloud.handle(withClientAddress(req, A))).status, 401);
      }
    } finally {
      await t.close();
    }
  });
});

describe(`refused keys per address over real sockets (${runtime}'s adapter)`, () => {
  test("the adapter supplies the peer's address: 127.0.0.1 is limited, 127.0.0.2 is not", async () => {
    const svc = notesSvc({ rateLimit: { refusalsPerAddress: { limit: 3, windowMs: 60_000 } } });
    const server = await listen(svc.handle);
    const attempt = () =>
      fetch(`${server.url}/svc/agent/intents`, { headers: { authorization: "Bearer svc_live_unknown" } })
        .then(async (res) => [res.status, await res.text()] as const);
    try {
      const valid = await mint(svc, "alice", ["notes:read"]);
      for (let i = 0; i < 3; i++) assert.equal((await attempt())[0], 401);
      const [status, text] = await attempt();
      assert.equal(status, 429, text);
      assert.equal(JSON.parse(text).error.code, "RATE_LIMITED");
      const served = await fetch(`${server.url}/svc/agent/intents`, {
        headers: { authorization: `Bearer ${valid.key}` },
      });
      assert.equal(served.status, 200, "a valid key from 127.0.0.1 is still served");
      await served.body?.cancel();
      const other = await rawRequest(
        server.port,
        "GET /svc/agent/intents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer svc_live_unknown\r\nConnection: close",
        "",
        300,
        "127.0.0.2",
      );
      assert.equal(other.status, 401, "another loopback address keeps its budget");
    } finally {
      await server.close();
      await svc.close();
    }
  });
});
