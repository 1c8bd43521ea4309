import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { authorizeParams, getAuthorize, oauthApp, ORIGIN, pkce, tokenRequest } from "../../fixtures/oauth_app.ts";
import { isInternalHost } from "../../../core/oauth/mod.ts";
import { withClientAddress } from "../../../core/http/mod.ts";
import { startSilentServer } from "../../fixtures/silent_server.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

/** Serves one client metadata document (or whatever `answer` says) on 127.0.0.1; counts the requests. */
async function documentServer(
  answer: (url: string) => { status: number; body: string },
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    const { status, body } = answer(`http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`);
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/oauth/client.json`,
    hits: () => hits,
    // Every connection ends with the server: one whose body the reader dropped (past the size bound) could
    // otherwise hold close() until the server's own timeouts (seen: 180 s under load).
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const REDIRECT = "http://127.0.0.1:5555/callback";

test("a Client ID Metadata Document URL is fetched and its client named on the consent page", async () => {
  const doc = await documentServer((url) => ({
    status: 200,
    body: JSON.stringify({ client_id: url, client_name: "Doc Client", redirect_uris: [REDIRECT] }),
  }));
  const app = await oauthApp({ allowLoopbackClientIds: true });
  try {
    const params = { ...authorizeParams(doc.url, (await pkce()).challenge), redirect_uri: REDIRECT };
    const res = await getAuthorize(app.handle, "alice", params);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /Allow <strong>Doc Client<\/strong>/);
    assert.match(page, /published at <strong>127\.0\.0\.1:\d+<\/strong>/);
    await getAuthorize(app.handle, "alice", params);
    assert.equal(doc.hits(), 1, "the document is kept a while, not fetched per request");
  } finally {
    await app.close();
    await doc.close();
  }
});

test("a client_id URL inside the network is refused unless allowLoopbackClientIds, and nothing is fetched", async () => {
  const doc = await documentServer((url) => ({
    status: 200,
    body: JSON.stringify({ client_id: url, client_name: "Doc Client", redirect_uris: [REDIRECT] }),
  }));
  const app = await oauthApp();
  try {
    for (const clientId of [doc.url, doc.url.replace("http:", "https:"), "https://10.0.0.7/c.json"]) {
      const res = await getAuthorize(app.handle, "alice", authorizeParams(clientId, (await pkce()).challenge));
      assert.equal(res.status, 400, clientId);
      assert.equal(res.headers.get("location"), null);
    }
    assert.equal(doc.hits(), 0);
  } finally {
    await app.close();
    await doc.close();
  }
});

test("a document that names another client_id, lists a bad redirect, is too big or is not there is refused", async () => {
  const bodies: Record<string, (url: string) => { status: number; body: string }> = {
    "/other": () => ({
      status: 200,
      body: JSON.stringify({ client_id: "https://x.example/c", redirect_uris: [REDIRECT] }),
    }),
    "/bad-redirect": (url) => ({
      status: 200,
      body: JSON.stringify({ client_id: url, redirect_uris: ["javascript:x"] }),
    }),
    "/big": (url) => ({
      status: 200,
      body: JSON.stringify({ client_id: url, redirect_uris: [REDIRECT], pad: "x".repeat(20_000) }),
    }),
    "/missing": () => ({ status: 404, body: "{}" }),
    "/redirect": () => ({ status: 302, body: "" }),
    "/garbage": () => ({ status: 200, body: "<html>" }),
  };
  const doc = await documentServer((url) => bodies[new URL(url).pathname](url));
  const app = await oauthApp({ allowLoopbackClientIds: true });
  try {
    for (const path of Object.keys(bodies)) {
      const clientId = new URL(path, doc.url).href;
      const res = await getAuthorize(app.handle, "alice", { ...authorizeParams(clientId, (await pkce()).challenge) });
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get("location"), null, path);
    }
  } finally {
    await app.close();
    await doc.close();
  }
});

test("internal hosts: loopback, private, link-local, CGNAT, unique-local and local names", () => {
  for (
    const host of [
      "localhost",
      "app.localhost",
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "[::1]",
      "[fd00::1]",
      "[fe80::1]",
      "[::ffff:7f00:1]",
      "printer.local",
      "metadata.google.internal",
      "intranet",
    ]
  ) {
    assert.equal(isInternalHost(host), true, host);
  }
  for (const host of ["client.example.com", "8.8.8.8", "172.32.0.1", "[2001:db8::1]"]) {
    assert.equal(isInternalHost(host), false, host);
  }
  assert.equal(isInternalHost(new URL("https://0x7f000001/").hostname), true, "URL parsing normalises 0x7f000001");
});

/** A signed-out GET /svc/oauth/authorize naming `clientId`, from `address`. */
async function signedOut(
  handle: (req: Request) => Promise<Response>,
  clientId: string,
  address: string,
): Promise<Response> {
  const query = new URLSearchParams(authorizeParams(clientId, (await pkce()).challenge));
  return handle(withClientAddress(new Request(`${ORIGIN}/svc/oauth/authorize?${query}`), address));
}

test("document fetches in flight are capped: past the cap a request is refused at once, never queued", async () => {
  const silent = await startSilentServer();
  // A long timeout: the fetches that got through hang until the host is closed, not until a timer runs out.
  // One host here: its own cap (two) is lifted to show the overall one.
  const app = await oauthApp({ allowLoopbackClientIds: true }, {
    clientDocuments: { limits: { timeoutMs: 600_000, perHost: 200 } },
  });
  const answers: Response[] = [];
  try {
    const pending = Array.from(
      { length: 200 },
      (_, i) =>
        signedOut(app.handle, `${silent.url}/client/${i}.json`, `198.51.100.${i + 1}`).then((res) => {
          answers.push(res);
          return res;
        }),
    );
    await waitFor("196 of 200 requests to be answered", () => answers.length === 196);
    await waitFor("the 4 fetches let through to reach the host", () => silent.accepted() === 4);
    for (const res of answers) {
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("location"), null);
      assert.match(await res.text(), /too many documents are being fetched/);
    }
    assert.equal(answers.length, 196, "the 4 fetches still hang meanwhile");
    await silent.close(); // the held fetches fail now
    const all = await Promise.all(pending);
    assert.ok(all.every((res) => res.status === 400));
    // Before: 200 connections, each held 5 s.
    assert.equal(silent.accepted(), 4);
  } finally {
    await silent.close();
    await app.close();
  }
});

test("a host that never answers holds two fetches at most: another client's document is still fetched", async () => {
  const good = "https://good.example/client.json";
  let fetches = 0;
  const fetchDocument = (input: URL | string, init?: RequestInit) => {
    fetches++;
    if (String(input) === good) {
      return Promise.resolve(Response.json({ client_id: good, client_name: "Good", redirect_uris: [REDIRECT] }));
    }
    // The host never answers: the fetch ends only when the reader gives up.
    return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("x"))));
  };
  const app = await oauthApp({}, {
    clientDocuments: { fetch: fetchDocument as typeof fetch, limits: { timeoutMs: 600_000 } },
  });
  try {
    // Whichever two reach the reader last are refused; the other two hang on the host.
    const refused: Response[] = [];
    for (let i = 0; i < 4; i++) {
      void signedOut(app.handle, `https://blackhole.example/c${i}`, `198.51.100.${i + 1}`).then((r) => refused.push(r));
    }
    await waitFor("two requests past the host's cap to be refused", () => refused.length === 2);
    for (const res of refused) {
      assert.equal(res.status, 400);
      assert.match(await res.text(), /too many documents are being fetched from its host/);
    }
    assert.equal(fetches, 2, "two fetches hang on the host");
    const legit = await signedOut(app.handle, good, "203.0.113.9");
    assert.doesNotMatch(await legit.text(), /too many documents/);
    assert.notEqual(legit.status, 400, "the good client's document was fetched");
    assert.equal(fetches, 3);
  } finally {
    await app.close();
  }
});

test("document fetches are limited per client address (an IPv6 /64): 10 a minute, then refused without a fetch", async () => {
  const doc = await documentServer(() => ({ status: 404, body: "{}" }));
  const app = await oauthApp({ allowLoopbackClientIds: true });
  try {
    for (let i = 0; i < 15; i++) {
      const res = await signedOut(app.handle, new URL(`/c/${i}.json`, doc.url).href, `2001:db8:5:6::${i + 1}`);
      assert.equal(res.status, 400);
      await res.body?.cancel();
    }
    assert.equal(doc.hits(), 10, "before: 15, one per request");
    const token = await tokenRequest(app.handle, {
      grant_type: "authorization_code",
      client_id: new URL("/c/99.json", doc.url).href,
      code: "x",
      redirect_uri: REDIRECT,
      code_verifier: "x".repeat(43),
    });
    assert.equal(token.status, 401, "the token endpoint names no address here: not limited per address");
    assert.equal(doc.hits(), 11);
    const other = await signedOut(app.handle, new URL("/c/100.json", doc.url).href, "2001:db8:5:7::1");
    await other.body?.cancel();
    assert.equal(doc.hits(), 12, "another /64 is fetched for");
    app.advance(60_000);
    await (await signedOut(app.handle, new URL("/c/101.json", doc.url).href, "2001:db8:5:6::99")).body?.cancel();
    assert.equal(doc.hits(), 13, "the budget is back after the window");
  } finally {
    await app.close();
    await doc.close();
  }
});

test("a refused or failed document is remembered a minute: named again meanwhile, it is refused without a fetch", async () => {
  const doc = await documentServer(() => ({ status: 404, body: "{}" }));
  const app = await oauthApp({ allowLoopbackClientIds: true });
  try {
    for (let i = 0; i < 5; i++) {
      const res = await signedOut(app.handle, doc.url, `198.51.100.${i + 1}`);
      assert.equal(res.status, 400);
      const text = await res.text();
      assert.match(text, /could not be fetched/);
      assert.doesNotMatch(text, /404/, "the host's status is not told");
    }
    assert.equal(doc.hits(), 1, "before: 5, one per request");
    app.advance(60_000);
    await (await signedOut(app.handle, doc.url, "198.51.100.9")).body?.cancel();
    assert.equal(doc.hits(), 2, "after a minute it is fetched again");
  } finally {
    await app.close();
    await doc.close();
  }
});
