// A page on another site must not act as the signed-in user (CSRF). Most `/svc` user routes take a JSON body, which
// a cross-site form cannot send without a preflight; approving an approval takes none. A browser marks a request from
// another site `Sec-Fetch-Site: cross-site`: such an unsafe request is refused before the app's user is resolved, and
// nothing changes; the same request from the app's own pages (same-origin), or with no browser header (curl), passes.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../mod.ts";
import { BASE, errorOf, intents, mint, notesSvc, run, wipeIntent } from "../fixtures/notes_svc.ts";

function fromSite(svc: Svc, site: string | null, method: string, path: string): Promise<Response> {
  const headers: Record<string, string> = { "x-user": "alice" };
  if (site !== null) headers["sec-fetch-site"] = site;
  return svc.handle(new Request(`${BASE}${path}`, { method, headers }));
}

describe("user routes and requests from another site", () => {
  const ran: unknown[] = [];
  const svc = notesSvc({ intents: [...intents, wipeIntent(ran)] });
  after(() => svc.close());

  test("a cross-site approve is refused and the approval stays pending; the same-origin one approves", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const asked = await run(svc, key, "notes.delete_all", { folder: "work" });
    assert.equal(asked.status, 202);
    const { approvalId } = await asked.json();
    const forged = await fromSite(svc, "cross-site", "POST", `/svc/approvals/${approvalId}/approve`);
    assert.equal(forged.status, 401);
    assert.match((await errorOf(forged)).message, /another site/);
    const denied = await fromSite(svc, "cross-site", "POST", `/svc/approvals/${approvalId}/deny`);
    assert.equal(denied.status, 401);
    assert.deepEqual(ran, [], "nothing ran");
    const listed = await (await fromSite(svc, "cross-site", "GET", "/svc/approvals")).json();
    assert.equal(listed.approvals[0].status, "pending", "a read from another site is answered, and nothing changed");
    const approved = await fromSite(svc, "same-origin", "POST", `/svc/approvals/${approvalId}/approve`);
    assert.equal(approved.status, 200);
    assert.deepEqual(ran, [{ folder: "work" }]);
  });

  test("a cross-site revoke is refused; without a browser's header (curl) it revokes", async () => {
    const { id } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await fromSite(svc, "cross-site", "DELETE", `/svc/keys/${id}`)).status, 401);
    assert.equal((await fromSite(svc, null, "DELETE", `/svc/keys/${id}`)).status, 200);
  });
});
