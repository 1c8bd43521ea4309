// @slow: a cloud on a socket
// OAuth in cloud mode: the access token is an expiring key the cloud mints and keeps, listed there with the
// client's name and audited; the app and the cloud refuse it once its hour is over (both on one injected clock);
// a refresh revokes the key it replaces with reason oauth, in the feed and the audit log.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc } from "../../../mod.ts";
import { asAgent, notesSvc } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { authorizeParams, consent, pkce, REDIRECT, register, tokenRequest } from "../../fixtures/oauth_app.ts";

const HOUR = 3_600_000;

describe("OAuth in cloud mode", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;
  let at = Date.parse("2026-03-01T00:00:00.000Z");
  const now = () => at;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-oauth-cloud-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`, { now });
    svc = notesSvc({ mode: "cloud", storage: `file:${join(dir, "app.db")}`, cloud: cloud.appConfig(), oauth: {} }, now);
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const verify = async (key: string) => (await (await cloud.sdk("POST", "/v1/sdk/keys/verify", { key })).json()).valid;
  const atApp = async (key: string) => (await asAgent(svc, key, "GET", "/svc/agent/intents")).status;

  test("the access token is a key of the cloud: listed with the client's name, audited, expiring, revoked as oauth", async () => {
    const handle = (req: Request) => svc.handle(req);
    const clientId = await register(handle, [REDIRECT], "Inspector");
    const { verifier, challenge } = await pkce();
    const back = await consent(handle, "alice", authorizeParams(clientId, challenge));
    const first = await (await tokenRequest(handle, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    })).json();
    assert.equal(typeof first.access_token, "string", JSON.stringify(first));
    assert.equal(await atApp(first.access_token), 200);
    assert.equal(await verify(first.access_token), true);

    const [key] = (await (await cloud.sdk("GET", "/v1/sdk/keys?userId=alice")).json()).keys;
    assert.equal(key.name, "Inspector", "the cloud lists it with the client's name");
    assert.equal(key.expiresAt, new Date(at + HOUR).toISOString(), "an access token lives an hour");
    const created = await (await cloud.sdk("GET", "/v1/sdk/audit?action=key.create")).json();
    assert.deepEqual(created.entries.map((e: { target: string }) => e.target), [key.id], "the grant's key is audited");

    const second = await (await tokenRequest(handle, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: first.refresh_token,
    })).json();
    assert.equal(await atApp(first.access_token), 401, "the replaced token is revoked");
    const feed = await (await cloud.sdk("GET", "/v1/sdk/keys/revocations")).json();
    assert.deepEqual(feed.revocations.map((r: { keyId: string; reason: string }) => [r.keyId, r.reason]), [
      [key.id, "oauth"],
    ]);
    const revoked = await (await cloud.sdk("GET", "/v1/sdk/audit?action=key.revoke")).json();
    assert.deepEqual(
      revoked.entries.map((e: { actor: string; detail: { reason: string } }) => [e.actor, e.detail.reason]),
      [
        ["app", "oauth"],
      ],
    );

    assert.equal(await atApp(second.access_token), 200);
    at += HOUR;
    assert.equal(await atApp(second.access_token), 401, "expired at the app");
    assert.equal(await verify(second.access_token), false, "and at the cloud");
  });
});
