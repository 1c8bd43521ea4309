// @slow: a cloud on a socket
// OAuth in hybrid mode: the access token is a key the app keeps and mirrors, so the cloud lets it read its agent's
// inbox; a refresh revokes the key it replaces there too, and a key the user revokes ends the grant.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc } from "../../../mod.ts";
import { asUser, notesSvc } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { authorizeParams, consent, pkce, REDIRECT, register, tokenRequest } from "../../fixtures/oauth_app.ts";

describe("OAuth in hybrid mode", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-oauth-hybrid-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    svc = notesSvc({ mode: "hybrid", storage: `file:${join(dir, "app.db")}`, cloud: cloud.appConfig(), oauth: {} });
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const inbox = (key: string) => fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });

  test("the access token reads its inbox at the cloud; a refresh and a revoke reach the cloud", async () => {
    const handle = (req: Request) => svc.handle(req);
    const clientId = await register(handle);
    const { verifier, challenge } = await pkce();
    const back = await consent(handle, "alice", authorizeParams(clientId, challenge));
    const first = await (await tokenRequest(handle, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    })).json();
    assert.equal(await svc.sync(), 0, "the key reached the cloud");
    assert.equal((await inbox(first.access_token)).status, 200);

    const refresh = { grant_type: "refresh_token", client_id: clientId };
    const second = await (await tokenRequest(handle, { ...refresh, refresh_token: first.refresh_token })).json();
    assert.equal(await svc.sync(), 0);
    assert.equal((await inbox(first.access_token)).status, 401, "the replaced key is revoked at the cloud too");
    const reasons = async () =>
      (await (await cloud.sdk("GET", "/v1/sdk/keys/revocations")).json()).revocations.map((r: { reason: string }) =>
        r.reason
      );
    assert.deepEqual(await reasons(), ["oauth"], "the grant's own revocation reaches the feed as oauth");
    assert.equal((await inbox(second.access_token)).status, 200);

    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    const current = keys.find((k: { revokedAt: string | null }) => k.revokedAt === null);
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${current.id}`)).status, 200);
    assert.equal(await svc.sync(), 0);
    assert.equal((await inbox(second.access_token)).status, 401);
    assert.deepEqual(await reasons(), ["oauth", "app"], "the user's revoke is the app's");
    const ended = await tokenRequest(handle, { ...refresh, refresh_token: second.refresh_token });
    assert.equal((await ended.json()).error, "invalid_grant", "revoking the key ended the grant");
  });
});
