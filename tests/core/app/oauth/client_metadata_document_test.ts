import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { authorizeParams, getAuthorize, oauthApp, pkce } from "../../../fixtures/oauth_app.ts";
import { isInternalHost } from "../../../../core/app/oauth/mod.ts";

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
