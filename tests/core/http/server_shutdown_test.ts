// What adapters' servers answer once closing: `Connection: close` on every answer, in flight or new.
import { test } from "node:test";
import assert from "node:assert/strict";
import { closingAware } from "../../../core/http/mod.ts";

test("closingAware() marks answers with Connection: close once closing began, those in flight at that moment too", async () => {
  let release!: (res: Response) => void;
  const served = closingAware((req) =>
    new URL(req.url).pathname === "/held" ? new Promise<Response>((r) => release = r) : new Response("now")
  );
  const before = await served.handle(new Request("http://x/now"));
  assert.equal(before.headers.get("connection"), null);
  const held = served.handle(new Request("http://x/held"));
  served.begin();
  release(Response.json({ items: [] }));
  assert.equal((await held).headers.get("connection"), "close");
  assert.equal((await served.handle(new Request("http://x/now"))).headers.get("connection"), "close");
  // An answer whose headers cannot change (a redirect) is copied with the header.
  const redirect = closingAware(() => Response.redirect("http://x/elsewhere", 302));
  redirect.begin();
  const moved = await redirect.handle(new Request("http://x/"));
  assert.equal(moved.status, 302);
  assert.equal(moved.headers.get("connection"), "close");
});
