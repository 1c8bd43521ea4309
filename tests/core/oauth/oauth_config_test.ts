import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvc, type SvcConfig } from "../../../mod.ts";

const cloud = { endpoint: "http://127.0.0.1:1", projectId: "prj_01JABCDEFGHJKMNPQRSTVWXYZ0", sdkSecret: "svcs_x" };
const base = { userResolver: () => null, scopes: [] as string[] };

function refused(config: Record<string, unknown>, part: string): void {
  assert.throws(() => createSvc(config as unknown as SvcConfig), (error: Error) => {
    assert.match(error.message, /^createSvc: /);
    assert.ok(error.message.includes(part), `"${part}" in: ${error.message}`);
    return true;
  });
}

test("createSvc takes oauth in cloud mode too: the access tokens are expiring keys the cloud keeps", async () => {
  const svc = createSvc({ ...base, mode: "cloud", cloud, oauth: {}, logger: () => {} } as SvcConfig);
  try {
    const metadata = await svc.handle(new Request("http://app.test/.well-known/oauth-authorization-server/svc"));
    assert.equal(metadata.status, 200, "the authorization server is routed");
  } finally {
    await svc.close();
  }
});

test("createSvc refuses a malformed oauth option, naming it", () => {
  refused({ ...base, oauth: { accessTokenTtlSeconds: 0 } }, "oauth.accessTokenTtlSeconds must be a positive");
  refused({ ...base, oauth: { refreshTokenTtlSeconds: 1.5 } }, "oauth.refreshTokenTtlSeconds");
  refused({ ...base, oauth: { publicUrl: "app.example.com" } }, "oauth.publicUrl must be the app's public origin");
  refused({ ...base, oauth: { clients: [{ clientId: "x" }] } }, "oauth.clients");
  refused({ ...base, oauth: "yes" }, "oauth must be an object");
});

test("a pre-registered client is known without registration, by its exact redirect URI", async () => {
  const svc = createSvc({
    ...base,
    userResolver: (req) => req.headers.get("x-user"),
    scopes: ["notes:read"],
    oauth: { clients: [{ clientId: "notes-cli", name: "Notes CLI", redirectUris: ["http://127.0.0.1:7000/cb"] }] },
  });
  try {
    const params = new URLSearchParams({
      response_type: "code",
      client_id: "notes-cli",
      redirect_uri: "http://127.0.0.1:7000/cb",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const res = await svc.handle(
      new Request(`http://app.test/svc/oauth/authorize?${params}`, { headers: { "x-user": "alice" } }),
    );
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /Allow <strong>Notes CLI<\/strong>/);
    assert.match(page, /This app registered it\./);
  } finally {
    await svc.close();
  }
});
