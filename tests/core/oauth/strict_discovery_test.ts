// oauth4webapi's strict discovery (RFC 8414 §3.3: the issuer equals the one the URL was built from; RFC 9728 §3.3: the
// resource equals the one asked about) accepts every discovery document the app serves, and the URLs it does not
// serve answer 404 rather than a document with another identifier.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { OAUTH_DISCOVERY_ROUTES } from "../../../core/oauth/mod.ts";
import { notesSvc } from "../../fixtures/notes_svc.ts";

const ORIGIN = "https://notes.example.com";
const PRM = "/.well-known/oauth-protected-resource";
const ASM = "/.well-known/oauth-authorization-server";

test("oauth4webapi's strict discovery accepts every discovery document the app serves, root and path", async () => {
  const svc = notesSvc({ oauth: { publicUrl: ORIGIN } });
  try {
    const options = { [oauth.customFetch]: (url: string, init: RequestInit) => svc.handle(new Request(url, init)) };
    const served: string[] = [];
    for (const path of OAUTH_DISCOVERY_ROUTES) {
      const res = await svc.handle(new Request(ORIGIN + path));
      if (res.status !== 200) {
        assert.equal(res.status, 404, path);
        assert.equal((await res.json()).ok, false, `${path}: a JSON 404`);
        continue;
      }
      served.push(path);
      if (path.startsWith(PRM)) {
        const resource = new URL(ORIGIN + (path.slice(PRM.length) || "/"));
        const doc = await oauth.processResourceDiscoveryResponse(
          resource,
          await oauth.resourceDiscoveryRequest(resource, options),
        );
        assert.deepEqual(doc.authorization_servers, [`${ORIGIN}/svc`], path);
      } else {
        assert.ok(path.startsWith(ASM), `${path}: only OAuth documents are served`);
        const issuer = new URL(ORIGIN + path.slice(ASM.length));
        const as = await oauth.processDiscoveryResponse(
          issuer,
          await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
        );
        assert.equal(as.issuer, `${ORIGIN}/svc`);
        assert.equal(as.token_endpoint, `${ORIGIN}/svc/oauth/token`);
      }
    }
    assert.deepEqual(served.sort(), [
      `${ASM}/svc`,
      `${PRM}/svc`,
      `${PRM}/svc/agent/intents`,
      `${PRM}/svc/agent/run`,
      `${PRM}/svc/mcp`,
    ]);
  } finally {
    await svc.close();
  }
});
