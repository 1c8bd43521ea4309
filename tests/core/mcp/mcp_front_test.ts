// What stands in front of /svc/mcp and the OAuth routes: Origin and Host checked (the DNS-rebinding defence of
// the 2025-11-25 transports), root discovery documents 404, published URLs from publicUrl only, and the discovery
// probes of an app without OAuth answered with JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Elysia } from "elysia";
import { withSvc } from "../../../mod.ts";
import { svcPlugin } from "../../../adapters/elysia.ts";
import { mint, notesSvc } from "../../fixtures/notes_svc.ts";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "front-test", version: "1.0.0" },
  },
};

function initialize(
  handle: (req: Request) => Promise<Response>,
  url: string,
  key: string | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  return handle(
    new Request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...headers,
      },
      body: JSON.stringify(INIT),
    }),
  );
}

test("without publicUrl or allowedOrigins, /svc/mcp serves no Origin and loopback Origins, and refuses others 403", async () => {
  const svc = notesSvc();
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const url = "http://127.0.0.1:8000/svc/mcp";
    assert.equal((await initialize(svc.handle, url, key)).status, 200, "no Origin: a non-browser client");
    for (const origin of ["http://localhost:6274", "http://127.0.0.1:8000", "http://[::1]:3000"]) {
      assert.equal((await initialize(svc.handle, url, key, { origin })).status, 200, origin);
    }
    // The conformance suite's dns-rebinding-protection: a page at evil.example.com resolving to the loopback.
    const evil = await initialize(svc.handle, "http://evil.example.com/svc/mcp", key, {
      origin: "http://evil.example.com",
    });
    assert.equal(evil.status, 403);
    const body = await evil.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.code, -32003);
    assert.match(body.error.message, /Origin/);
    for (const origin of ["null", "http://localhost.evil.example.com"]) {
      assert.equal((await initialize(svc.handle, url, key, { origin })).status, 403, origin);
    }
  } finally {
    await svc.close();
  }
});

test("with publicUrl and allowedOrigins, only those origins and their hosts are served, on /svc/mcp and OAuth", async () => {
  const svc = notesSvc({
    oauth: { publicUrl: "https://notes.example.com" },
    mcp: { allowedOrigins: ["https://chat.example.org"] },
  });
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const mcp = "https://notes.example.com/svc/mcp";
    assert.equal((await initialize(svc.handle, mcp, key)).status, 200);
    assert.equal((await initialize(svc.handle, mcp, key, { origin: "https://notes.example.com" })).status, 200);
    assert.equal((await initialize(svc.handle, mcp, key, { origin: "https://chat.example.org" })).status, 200);
    assert.equal((await initialize(svc.handle, mcp, key, { origin: "http://localhost:6274" })).status, 403);
    // A Host that is none of the app's origins' hosts: refused before any URL is built from it.
    const keyless = await initialize(svc.handle, "http://evil.example.com/svc/mcp", null);
    assert.equal(keyless.status, 403);
    assert.equal(keyless.headers.get("www-authenticate"), null, "no resource_metadata pointing at evil.example.com");
    for (const path of ["/.well-known/oauth-protected-resource/svc/mcp", "/svc/oauth/token"]) {
      const res = await svc.handle(new Request(`http://evil.example.com${path}`));
      assert.equal(res.status, 403, path);
      assert.equal((await res.json()).error, "access_denied", path);
    }
    const register = await svc.handle(
      new Request("https://notes.example.com/svc/oauth/register", {
        method: "POST",
        headers: { origin: "https://evil.example.com", "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:5555/cb"], client_name: "x" }),
      }),
    );
    assert.equal(register.status, 403);
    const keyed = await initialize(svc.handle, mcp, null);
    assert.equal(keyed.status, 401);
    assert.match(
      keyed.headers.get("www-authenticate") ?? "",
      /resource_metadata="https:\/\/notes\.example\.com\/\.well-known\/oauth-protected-resource\/svc\/mcp"/,
    );
  } finally {
    await svc.close();
  }
});

test("the origin's root discovery documents answer 404: their identifiers would have to be the origin itself", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    for (
      const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
      ]
    ) {
      const res = await withSvc(svc, () => new Response("app"))(new Request(`http://127.0.0.1:8000${path}`));
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).error.code, "NOT_FOUND", path);
    }
    const prm = await svc.handle(new Request("http://127.0.0.1:8000/.well-known/oauth-protected-resource/svc/mcp"));
    assert.equal((await prm.json()).resource, "http://127.0.0.1:8000/svc/mcp", "the path-aware one is served");
  } finally {
    await svc.close();
  }
});

test("withSvc and svcPlugin answer an MCP client's discovery probes with a JSON 404 when OAuth is off", async () => {
  const svc = notesSvc();
  try {
    const withSvcHandler = withSvc(svc, () => new Response("app"));
    const plugin = new Elysia().use(svcPlugin(svc)).get("/", () => "app");
    const handlers = [withSvcHandler, (req: Request) => plugin.handle(req)];
    for (const handler of handlers) {
      for (
        const path of [
          "/.well-known/oauth-protected-resource/svc/mcp",
          "/.well-known/oauth-protected-resource",
          "/.well-known/oauth-authorization-server",
          "/.well-known/openid-configuration",
        ]
      ) {
        const res = await handler(new Request(`http://127.0.0.1:8000${path}`));
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get("content-type"), "application/json", path);
        assert.equal((await res.json()).ok, false, path);
      }
    }
  } finally {
    await svc.close();
  }
});

test("mcp.allowedOrigins must be http(s) URLs", () => {
  assert.throws(
    () => notesSvc({ mcp: { allowedOrigins: ["chat.example.org"] } }),
    /mcp\.allowedOrigins\.0: each of mcp\.allowedOrigins must be an origin/,
  );
});

test("without configured origins, the consent form's post from the app's own origin (or Origin: null) reaches the OAuth server", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const post = (origin: string) =>
      svc.handle(
        new Request("https://notes.example.com/svc/oauth/authorize", {
          method: "POST",
          headers: { origin, "content-type": "application/x-www-form-urlencoded", "x-user": "alice" },
          body: "client_id=unknown",
        }),
      );
    const own = await post("https://notes.example.com");
    assert.notEqual(own.status, 403, "the app's own page");
    assert.match(own.headers.get("content-type") ?? "", /text\/html/, "answered by the authorization endpoint");
    assert.equal((await post("https://evil.example.com")).status, 403);
    // The consent page sends no referrer, so browsers post its form with `Origin: null` (Chromium does).
    const opaque = await post("null");
    assert.notEqual(opaque.status, 403, "a form post from a no-referrer page");
    assert.match(opaque.headers.get("content-type") ?? "", /text\/html/);
    // /svc/mcp takes no such exception: a rebinding page's Origin is its own.
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const mcp = await initialize(svc.handle, "https://notes.example.com/svc/mcp", key, {
      origin: "https://notes.example.com",
    });
    assert.equal(mcp.status, 403);
    const opaqueMcp = await initialize(svc.handle, "https://notes.example.com/svc/mcp", key, { origin: "null" });
    assert.equal(opaqueMcp.status, 403);
  } finally {
    await svc.close();
  }
});

test("with publicUrl set, the consent form's post with Origin: null still reaches the OAuth server", async () => {
  const svc = notesSvc({ oauth: { publicUrl: "https://notes.example.com" } });
  try {
    const res = await svc.handle(
      new Request("https://notes.example.com/svc/oauth/authorize", {
        method: "POST",
        headers: { origin: "null", "content-type": "application/x-www-form-urlencoded", "x-user": "alice" },
        body: "client_id=unknown",
      }),
    );
    assert.notEqual(res.status, 403);
    assert.match(res.headers.get("content-type") ?? "", /text\/html/);
  } finally {
    await svc.close();
  }
});

test("a 429 at /svc/mcp keeps its Retry-After and carries a JSON-RPC error", async () => {
  const svc = notesSvc({ rateLimit: { perKey: { limit: 1, windowMs: 60_000 } } });
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await initialize(svc.handle, "http://127.0.0.1:8000/svc/mcp", key)).status, 200);
    const limited = await initialize(svc.handle, "http://127.0.0.1:8000/svc/mcp", key);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    const body = await limited.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.code, -32029);
    assert.match(body.error.message, /^Too many requests to this MCP server: retry in \d+ seconds\.$/);
    assert.equal(body.error.data.code, "RATE_LIMITED");
  } finally {
    await svc.close();
  }
});
