// An OAuth grant is one thing with one key in force (local mode, in process, real libSQL): revoking any key of a
// grant ends it, even one a refresh replaced a moment before; a refresh that loses to a revoke or to a replay leaves
// no working token; the token endpoint is limited per grant and per address; a grant's keys share one rate bucket,
// are listed once and purged after their grace; a refresh lists no keys.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asAgent, asUser, notesSvc, type NotesSvcOverrides, run } from "../../fixtures/notes_svc.ts";
import {
  authorizeAndExchange,
  authorizeParams,
  consent,
  grantOf,
  oauthApp,
  pkce,
  REDIRECT,
  refreshOnce,
  register,
  tokenRequest,
} from "../../fixtures/oauth_app.ts";
import { withClientAddress } from "../../../core/http/mod.ts";
import { newViolation } from "../../../core/contract/mod.ts";

const unlimited: NotesSvcOverrides = { oauth: { tokenRequestsPerGrant: false } };

/** The user's listed keys. */
async function keysOf(svc: Svc, user = "alice"): Promise<{ id: string; revokedAt: string | null }[]> {
  return (await (await asUser(svc, user, "GET", "/svc/keys")).json()).keys;
}

describe("OAuth grants own their keys (local mode)", () => {
  test("a user's revoke of a key the grant already replaced ends the grant: no call, no refresh", async () => {
    const svc = notesSvc(unlimited);
    try {
      const first = await grantOf(svc.handle);
      const [listed] = await keysOf(svc);
      const second = await refreshOnce(svc.handle, first.clientId, first.refresh);
      assert.equal(second.status, 200);
      // The user revokes the key they saw; the client replaced it meanwhile.
      assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${listed.id}`)).status, 200);
      assert.equal((await asAgent(svc, second.access!, "GET", "/svc/agent/intents")).status, 401);
      const third = await refreshOnce(svc.handle, first.clientId, second.refresh!);
      assert.deepEqual([third.status, third.error], [400, "invalid_grant"]);
    } finally {
      await svc.close();
    }
  });

  for (const how of ["DELETE /svc/keys/:id", "RFC 7009"] as const) {
    test(`a revoke (${how}) sent during a refresh storm ends the grant`, async () => {
      const svc = notesSvc(unlimited);
      try {
        const first = await grantOf(svc.handle);
        let tokens = { access: first.access, refresh: first.refresh };
        let refreshes = 0;
        let ended = false;
        const storm = (async () => {
          // Back to back, bounded: it stops at the first refusal.
          for (; refreshes < 400; refreshes++) {
            const next = await refreshOnce(svc.handle, first.clientId, tokens.refresh);
            if (next.status !== 200) return void (ended = true);
            tokens = { access: next.access!, refresh: next.refresh! };
          }
        })();
        const revoke = (async () => {
          for (let i = 0; i < 5; i++) await keysOf(svc); // a few refreshes go by
          if (how === "RFC 7009") {
            const res = await tokenRequest(
              svc.handle,
              { token: tokens.access, client_id: first.clientId },
              "/svc/oauth/revoke",
            );
            assert.equal(res.status, 200);
          } else {
            const [listed] = await keysOf(svc);
            assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${listed.id}`)).status, 200);
          }
        })();
        await Promise.all([storm, revoke]);
        assert.ok(ended, `the client went on refreshing (${refreshes} refreshes)`);
        assert.equal((await asAgent(svc, tokens.access, "GET", "/svc/agent/intents")).status, 401);
        assert.equal((await refreshOnce(svc.handle, first.clientId, tokens.refresh)).status, 400);
        assert.deepEqual((await keysOf(svc)).filter((k) => k.revokedAt === null), [], "no key of the grant is active");
      } finally {
        await svc.close();
      }
    });
  }

  test("two refreshes of one token at once leave no working token; the violation names the grant's key in force", async () => {
    const app = await oauthApp({ tokenRequestsPerGrant: false });
    try {
      for (let round = 0; round < 20; round++) {
        const { clientId, tokens } = await authorizeAndExchange(app);
        const [a, b] = await Promise.all([
          refreshOnce(app.handle, clientId, String(tokens.refresh_token)),
          refreshOnce(app.handle, clientId, String(tokens.refresh_token)),
        ]);
        assert.ok(a.status !== 200 || b.status !== 200, "one of them is a replay");
        for (const access of [a.access, b.access, String(tokens.access_token)]) {
          if (access === undefined) continue;
          const key = await app.keys.verify(access);
          assert.notEqual(key?.revokedAt ?? "revoked", null, `round ${round}: an access token still works`);
        }
        const replay = app.violations.findLast((v) => v.kind === "OAUTH_TOKEN_REPLAYED")!;
        const grant = await app.storage.db.execute({
          sql: "SELECT key_id FROM app_oauth_grants WHERE id = ?",
          args: [String(replay.metadata.grantId)],
        });
        assert.equal(
          replay.keyId,
          String(grant.rows[0].key_id),
          `round ${round}: the violation names the key in force`,
        );
      }
    } finally {
      await app.close();
    }
  });

  test("two exchanges of one code at once leave no working token (the grant exists before either mints)", async () => {
    const app = await oauthApp({ tokenRequestsPerGrant: false });
    try {
      for (let round = 0; round < 20; round++) {
        const clientId = await register(app.handle);
        const { verifier, challenge } = await pkce();
        const back = await consent(app.handle, "alice", authorizeParams(clientId, challenge));
        const form = {
          grant_type: "authorization_code",
          code: back.searchParams.get("code")!,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: clientId,
        };
        const answers = await Promise.all([tokenRequest(app.handle, form), tokenRequest(app.handle, form)]);
        const bodies = await Promise.all(answers.map((res) => res.json()));
        assert.ok(answers.some((res) => res.status === 400), `round ${round}: one exchange is refused`);
        for (const body of bodies.filter((b) => b.access_token)) {
          const key = await app.keys.verify(body.access_token);
          assert.ok(key === null || key.revokedAt !== null, `round ${round}: the winner's access token is revoked`);
          assert.equal((await refreshOnce(app.handle, clientId, body.refresh_token)).error, "invalid_grant");
        }
      }
    } finally {
      await app.close();
    }
  });

  test("ending a grant revokes every key of it still active, not only its key in force", async () => {
    const app = await oauthApp({ tokenRequestsPerGrant: false });
    try {
      const { clientId, tokens } = await authorizeAndExchange(app);
      const grantId = (await app.keys.verify(String(tokens.access_token)))!.grantId!;
      // A key a rotation minted and never revoked (its process stopped after losing).
      const stray = await app.keys.mint("alice", { name: "stray", scopes: ["notes:read"], grantId });
      const revoke = await tokenRequest(
        app.handle,
        { token: String(tokens.refresh_token), client_id: clientId },
        "/svc/oauth/revoke",
      );
      assert.equal(revoke.status, 200);
      assert.notEqual((await app.keys.verify(stray.secret))!.revokedAt, null, "the stray key of the grant is revoked");
      assert.notEqual((await app.keys.verify(String(tokens.access_token)))!.revokedAt, null);
    } finally {
      await app.close();
    }
  });

  test("an OAuth grant's key is not rerolled (404): the grant rotates its own key", async () => {
    const svc = notesSvc(unlimited);
    try {
      const granted = await grantOf(svc.handle);
      const [listed] = await keysOf(svc);
      const reroll = await asUser(svc, "alice", "POST", `/svc/keys/${listed.id}/reroll`, {});
      assert.equal(reroll.status, 404);
      assert.equal((await keysOf(svc)).length, 1, "no key outside the grant");
      assert.equal((await refreshOnce(svc.handle, granted.clientId, granted.refresh)).status, 200);
    } finally {
      await svc.close();
    }
  });

  test("the token endpoint answers 429 with Retry-After, in OAuth's error shape, per grant and per address", async () => {
    const app = await oauthApp({
      tokenRequestsPerGrant: { limit: 2, windowMs: 60_000 },
      tokenRequestsPerAddress: { limit: 5, windowMs: 60_000 },
    });
    try {
      const { clientId, tokens } = await authorizeAndExchange(app);
      let refresh = String(tokens.refresh_token);
      for (let i = 0; i < 2; i++) {
        const next = await refreshOnce(app.handle, clientId, refresh);
        assert.equal(next.status, 200);
        refresh = next.refresh!;
      }
      const limited = await tokenRequest(app.handle, {
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: refresh,
      });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
      assert.equal(limited.headers.get("cache-control"), "no-store");
      const body = await limited.json();
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, /grant/);
      app.advance(60_000);
      assert.equal((await refreshOnce(app.handle, clientId, refresh)).status, 200, "the refresh token was not spent");

      const from = (address: string) =>
        app.handle(withClientAddress(
          new Request("http://app.test/svc/oauth/token", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, refresh_token: "svcr_x" }),
          }),
          address,
        ));
      for (let i = 0; i < 5; i++) assert.equal((await from("203.0.113.7")).status, 400);
      const refused = await from("203.0.113.7");
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
      assert.match((await refused.json()).error_description, /address/);
      assert.equal((await from("203.0.113.8")).status, 400, "another address has its own budget");
    } finally {
      await app.close();
    }
  });

  test("only refused token requests count against an address, and an IPv6 address counts by its /64", async () => {
    const app = await oauthApp({
      tokenRequestsPerGrant: false,
      tokenRequestsPerAddress: { limit: 5, windowMs: 60_000 },
    });
    try {
      const junk = (address: string) =>
        app.handle(withClientAddress(
          new Request("http://app.test/svc/oauth/token", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ grant_type: "refresh_token", client_id: "x", refresh_token: "svcr_x" }),
          }),
          address,
        ));
      // A client behind a proxy, and a stranger behind the same proxy who sends junk past the budget.
      const viaProxy = (req: Request) => app.handle(withClientAddress(req, "192.0.2.1"));
      const granted = await grantOf(viaProxy);
      let refresh = granted.refresh;
      for (let i = 0; i < 7; i++) {
        const next = await refreshOnce(viaProxy, granted.clientId, refresh);
        assert.equal(next.status, 200, "valid refreshes never count against the address");
        refresh = next.refresh!;
      }
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await junk("192.0.2.1")).status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
      assert.equal((await refreshOnce(viaProxy, granted.clientId, refresh)).status, 200, "the client still refreshes");
      // One /64, a new address each time: one budget.
      const fromOne64 = [];
      for (let i = 1; i <= 6; i++) fromOne64.push((await junk(`2001:db8:1:2::${i.toString(16)}`)).status);
      assert.deepEqual(fromOne64, [401, 401, 401, 401, 401, 429]);
      assert.equal((await junk("2001:db8:1:3::1")).status, 401, "another /64 has its own budget");
    } finally {
      await app.close();
    }
  });

  test("a grant's successive keys share one rate bucket: refreshing on a 429 gains nothing", async () => {
    const svc = notesSvc({ ...unlimited, rateLimit: { perKey: { limit: 3, windowMs: 60_000 } } });
    try {
      const first = await grantOf(svc.handle);
      for (let i = 0; i < 3; i++) assert.equal((await run(svc, first.access, "notes.list")).status, 200);
      assert.equal((await run(svc, first.access, "notes.list")).status, 429);
      const next = await refreshOnce(svc.handle, first.clientId, first.refresh);
      assert.equal((await run(svc, next.access!, "notes.list")).status, 429, "the new key draws from the same bucket");
    } finally {
      await svc.close();
    }
  });

  test("a grant is listed once however often it refreshes, and the keys it replaced are purged after an hour", async () => {
    let at = Date.parse("2026-04-01T00:00:00.000Z");
    const svc = notesSvc(unlimited, () => at);
    try {
      const first = await grantOf(svc.handle);
      let refresh = first.refresh;
      let access = first.access;
      for (let i = 0; i < 20; i++) {
        const next = await refreshOnce(svc.handle, first.clientId, refresh);
        assert.equal(next.status, 200);
        ({ refresh, access } = { refresh: next.refresh!, access: next.access! });
      }
      const listed = await keysOf(svc);
      assert.equal(listed.length, 1, "one row per grant");
      assert.equal(listed[0].revokedAt, null, "its key in force");
      assert.equal((await asAgent(svc, access, "GET", "/svc/agent/intents")).status, 200);
      at += 3_600_001;
      const next = await refreshOnce(svc.handle, first.clientId, refresh);
      assert.equal(next.status, 200);
      // The store keeps the grant's new key and the one it just replaced; the 20 replaced an hour ago are gone.
      const minted = await asUser(svc, "alice", "POST", "/svc/keys", { name: "by hand", scopes: [] });
      assert.equal(minted.status, 201);
      assert.equal((await keysOf(svc)).length, 2);
    } finally {
      await svc.close();
    }
  });

  test("a refresh looks the grant up by id and lists none of the user's keys", async () => {
    const app = await oauthApp({ tokenRequestsPerGrant: false });
    try {
      const { clientId, tokens } = await authorizeAndExchange(app);
      let listings = 0;
      const list = app.keys.list.bind(app.keys);
      app.keys.list = (userId) => (listings++, list(userId));
      let refresh = String(tokens.refresh_token);
      for (let i = 0; i < 5; i++) {
        const next = await refreshOnce(app.handle, clientId, refresh);
        assert.equal(next.status, 200);
        refresh = next.refresh!;
      }
      assert.equal(listings, 0);
      const rows = await app.storage.db.execute("SELECT COUNT(*) AS n FROM app_keys WHERE grant_id IS NOT NULL");
      assert.equal(Number(rows.rows[0].n), 6, "every key of the grant carries its grant_id");
    } finally {
      await app.close();
    }
  });

  test("an auto-revoke of a grant's key ends the grant in the same transaction, and the key it mints next too", async () => {
    const app = await oauthApp({ tokenRequestsPerGrant: false });
    try {
      const { clientId, tokens } = await authorizeAndExchange(app);
      const live = (await app.keys.verify(String(tokens.access_token)))!;
      const at = new Date(app.now()).toISOString();
      await app.storage.insertViolations(
        [0, 1, 2].map(() => newViolation("FORBIDDEN_SCOPE", { keyId: live.id, userId: "alice", message: "refused" })),
      );
      assert.notEqual(await app.storage.autoRevoke(live.id, { threshold: 3, windowMinutes: 60 }, at), null);
      const grant = await app.storage.db.execute("SELECT revoked_at FROM app_oauth_grants");
      assert.equal(grant.rows[0].revoked_at, at, "the grant ended with its key");
      assert.equal((await refreshOnce(app.handle, clientId, String(tokens.refresh_token))).error, "invalid_grant");
    } finally {
      await app.close();
    }
  });

  test("auto-revoke counts a grant's keys together: refreshing between refused calls does not escape it", async () => {
    const svc = notesSvc({ ...unlimited, autoRevoke: { threshold: 3, windowMinutes: 10 } });
    try {
      let tokens = await grantOf(svc.handle, "alice", ["notes:read"]);
      let forbidden = 0;
      let refreshed = 0;
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 2; i++) {
          if ((await run(svc, tokens.access, "notes.create", { title: "x" })).status === 403) forbidden++;
        }
        await svc.violations(); // stored, and counted
        const next = await refreshOnce(svc.handle, tokens.clientId, tokens.refresh);
        if (next.status !== 200) break;
        refreshed++;
        tokens = { ...tokens, access: next.access!, refresh: next.refresh! };
      }
      const auto = (await svc.violations()).filter((v) => v.kind === "AUTO_REVOKED");
      assert.equal(auto.length, 1, `${forbidden} refused calls over ${refreshed + 1} keys`);
      assert.equal(refreshed, 1, "the grant ended at its third refused call, in its second key");
      assert.equal((await run(svc, tokens.access, "notes.list")).status, 401);
    } finally {
      await svc.close();
    }
  });

  test("hybrid: a feed revoke of a key the grant replaced ends the grant and revokes its key in force, for the cloud too", async () => {
    const app = await oauthApp({ tokenRequestsPerGrant: false });
    try {
      const { clientId, tokens } = await authorizeAndExchange(app);
      const old = (await app.keys.verify(String(tokens.access_token)))!;
      const next = await refreshOnce(app.handle, clientId, String(tokens.refresh_token));
      const at = new Date(app.now()).toISOString();
      // The app's own revoke of the replaced key comes back through the feed as oauth: it ends nothing.
      await app.storage.applyRevocations([{ keyId: old.id, revokedAt: at, reason: "oauth" }], 1);
      assert.equal((await app.keys.verify(next.access!))?.revokedAt, null);
      // An operator revoked the same key at the cloud before the app's revoke reached it.
      await app.storage.applyRevocations([{ keyId: old.id, revokedAt: at, reason: "dashboard" }], 2);
      const live = (await app.keys.verify(next.access!))!;
      assert.notEqual(live.revokedAt, null, "the grant's key in force is revoked");
      assert.ok((await app.storage.outboxHead(10)).some((item) => item.ref === live.id), "and queued for the cloud");
      assert.equal((await refreshOnce(app.handle, clientId, next.refresh!)).error, "invalid_grant");
    } finally {
      await app.close();
    }
  });
});
