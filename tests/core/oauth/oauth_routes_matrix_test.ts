// Every OAuth route and discovery URL, with every method and a set of hostile bodies, signed in or not:
// never a 500, the RFC's error JSON from the JSON endpoints, `Allow` on a wrong method, and nothing stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { OAUTH_DISCOVERY_ROUTES, OAUTH_PATHS } from "../../../core/oauth/mod.ts";
import { oauthApp, ORIGIN } from "../../fixtures/oauth_app.ts";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const BODIES: [string | null, string][] = [
  [null, ""],
  ["application/json", "{"],
  ["application/json", '{"redirect_uris":[{"__proto__":1}]}'],
  ["application/x-www-form-urlencoded", "grant_type=authorization_code&code=%FF%FE"],
  ["application/x-www-form-urlencoded", "a=" + "%00".repeat(1000)],
  ["text/plain", "svc_live_" + "A".repeat(40)],
  ["application/x-www-form-urlencoded", "token=svcr_x&client_id=" + "x".repeat(5000)],
];

test("no OAuth route answers 500 to any method, body or caller, and a refusal stores nothing", async () => {
  const app = await oauthApp();
  try {
    const paths = [...Object.values(OAUTH_PATHS), ...OAUTH_DISCOVERY_ROUTES];
    let requests = 0;
    for (const path of paths) {
      for (const method of METHODS) {
        for (const [type, body] of method === "GET" || method === "HEAD" ? [[null, ""] as [null, string]] : BODIES) {
          for (const user of [null, "alice"]) {
            const headers: Record<string, string> = {};
            if (type) headers["content-type"] = type;
            if (user) headers["x-user"] = user;
            const res = await app.handle(
              new Request(`${ORIGIN}${path}?client_id=%FF&redirect_uri=javascript:x`, {
                method,
                headers,
                body: method === "GET" || method === "HEAD" ? undefined : body,
              }),
            );
            requests++;
            const where = `${method} ${path} ${type} ${body.slice(0, 20)}`;
            assert.ok(res.status < 500, `${where}: ${res.status}`);
            if (res.status === 405) assert.ok(res.headers.get("allow"), `${where}: Allow`);
            const location = res.headers.get("location");
            assert.ok(location === null || location.startsWith(ORIGIN), `${where}: redirected to ${location}`);
            const contentType = res.headers.get("content-type") ?? "";
            if (res.status >= 400 && contentType.startsWith("application/json")) {
              const answer = await res.json();
              assert.equal(typeof answer.error, "string", where);
              assert.equal(typeof answer.error_description, "string", where);
            } else {
              await res.body?.cancel();
            }
          }
        }
      }
    }
    assert.ok(requests > 300, `${requests} requests`);
    for (const table of ["app_oauth_clients", "app_oauth_codes", "app_oauth_grants", "app_oauth_refresh_tokens"]) {
      const n = (await app.storage.db.execute(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0].n;
      assert.equal(Number(n), 0, table);
    }
    assert.deepEqual(await app.keys.list("alice"), []);
  } finally {
    await app.close();
  }
});
