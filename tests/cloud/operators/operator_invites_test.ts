// Operators managed by an admin, on real libSQL: invite links (stored hashed, used once, expiring), joining with the
// invite's role, role changes and removals that never leave the cloud without an admin, each audited with its change.
import { afterEach, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { type CloudRepositories, openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createOperatorService, INVITE_LINK_TTL_MS, type OperatorService } from "../../../cloud/operators/mod.ts";
import { CLI_ACTOR } from "../../../cloud/audit/mod.ts";
import { TEST_PASSWORD_COST } from "../../fixtures/test_cloud.ts";

const PASSWORD = "correct horse battery staple";
const NOW = Date.parse("2026-01-02T03:04:05.000Z");
const ADMIN = { actor: "admin@example.com", sourceAddress: "10.0.0.1" };

describe("operators managed by an admin", () => {
  let storage: CloudRepositories;
  let operators: OperatorService;
  beforeEach(async () => {
    storage = await openCloudStorage(createClient({ url: ":memory:" }));
    operators = createOperatorService(storage, { passwordCost: TEST_PASSWORD_COST });
    await operators.create("admin@example.com", "admin", PASSWORD, CLI_ACTOR);
  });
  afterEach(() => storage.close());

  const entries = async (action: string) =>
    (await storage.audit.listAudit({ action, limit: 10, offset: 0 })).entries.map((e) => [e.actor, e.target, e.detail]);

  test("an invite link joins once with its role, is stored only hashed, and is audited without the link", async () => {
    const invited = await operators.invite("New@Example.com", "viewer", ADMIN, NOW);
    assert.notEqual(invited, "taken");
    if (invited === "taken") return;
    const token = new URL(invited.link, "http://x").searchParams.get("token")!;
    assert.match(token, /^svci_[A-Za-z0-9]{40}$/);
    assert.equal(invited.expiresAt, new Date(NOW + INVITE_LINK_TTL_MS).toISOString());
    const invite = await operators.invitation(token, NOW + 1000);
    assert.deepEqual([invite?.email, invite?.role, invite?.invitedBy], ["new@example.com", "viewer", ADMIN.actor]);
    const rows = await storage.audit.listAudit({ limit: 100, offset: 0 });
    assert.doesNotMatch(JSON.stringify(rows), new RegExp(token));
    const joined = await operators.join(invite!, PASSWORD, "10.0.0.2", NOW + 2000);
    assert.deepEqual([joined?.email, joined?.role], ["new@example.com", "viewer"]);
    assert.equal((await operators.findByEmail("new@example.com"))?.role, "viewer");
    assert.equal(await operators.invitation(token, NOW + 3000), null, "spent");
    assert.equal(await operators.join(invite!, PASSWORD, null, NOW + 3000), null, "a second join stores nothing");
    assert.deepEqual(await entries("operator.invite"), [[ADMIN.actor, "new@example.com", { role: "viewer" }]]);
    assert.deepEqual(await entries("operator.join"), [[
      "new@example.com",
      "new@example.com",
      { role: "viewer", invitedBy: ADMIN.actor },
    ]]);
  });

  test("an invite expires, a made-up token finds nothing, and an operator's email cannot be invited", async () => {
    const invited = await operators.invite("late@example.com", "admin", ADMIN, NOW);
    if (invited === "taken") throw new Error("taken");
    const token = new URL(invited.link, "http://x").searchParams.get("token")!;
    assert.equal(await operators.invitation(token, NOW + INVITE_LINK_TTL_MS), null);
    assert.equal(await operators.invitation(`svci_${"a".repeat(40)}`, NOW), null);
    assert.equal(await operators.invitation("not a token", NOW), null);
    assert.equal(await operators.invite("ADMIN@example.com", "viewer", ADMIN, NOW), "taken");
    assert.equal((await entries("operator.invite")).length, 1, "a refused invite is not audited");
  });

  test("an invite whose email became an operator's meanwhile cannot be used", async () => {
    const invited = await operators.invite("twice@example.com", "viewer", ADMIN, NOW);
    if (invited === "taken") throw new Error("taken");
    const token = new URL(invited.link, "http://x").searchParams.get("token")!;
    const invite = await operators.invitation(token, NOW);
    await operators.create("twice@example.com", "admin", PASSWORD, CLI_ACTOR);
    assert.equal(await operators.invitation(token, NOW), null);
    assert.equal(await operators.join(invite!, PASSWORD, null, NOW), null);
  });

  test("a role change ends the operator's sessions and is audited; the last admin cannot become a viewer", async () => {
    const admin = (await operators.findByEmail("admin@example.com"))!;
    const viewer = (await operators.create("v@example.com", "viewer", PASSWORD, CLI_ACTOR))!;
    await operators.signIn(viewer, CLI_ACTOR, NOW, { idleMs: 60_000, maxMs: 3_600_000 });
    assert.equal(await operators.changeRole(admin, "viewer", ADMIN, NOW), "last_admin");
    assert.equal((await operators.findByEmail("admin@example.com"))?.role, "admin");
    assert.equal(await operators.changeRole(viewer, "admin", ADMIN, NOW), "done");
    assert.equal((await operators.find(viewer.id))?.role, "admin");
    const sessions = await storage.operators.purgeSessions(new Date(NOW + 10 * 3_600_000).toISOString(), "");
    assert.equal(sessions, 0, "the viewer's session ended with the change");
    assert.equal(await operators.changeRole(admin, "viewer", ADMIN, NOW), "done", "another admin remains");
    assert.deepEqual(await entries("operator.role"), [
      [ADMIN.actor, "admin@example.com", { from: "admin", to: "viewer" }],
      [ADMIN.actor, "v@example.com", { from: "viewer", to: "admin" }],
    ]);
    assert.equal(await operators.changeRole({ ...viewer, id: "op_gone" }, "viewer", ADMIN, NOW), "unknown");
  });

  test("an admin's pending invites end when the admin is demoted or removed; joined operators stay", async () => {
    const second = (await operators.create("second@example.com", "admin", PASSWORD, CLI_ACTOR))!;
    const third = (await operators.create("third@example.com", "admin", PASSWORD, CLI_ACTOR))!;
    const tokenOf = async (email: string, by: string) => {
      const invited = await operators.invite(email, "admin", { actor: by, sourceAddress: null }, NOW);
      if (invited === "taken") throw new Error("taken");
      return new URL(invited.link, "http://x").searchParams.get("token")!;
    };
    const bySecond = await tokenOf("a@example.com", "second@example.com");
    const byThird = await tokenOf("b@example.com", "third@example.com");
    const byAdmin = await tokenOf("c@example.com", "admin@example.com");
    assert.equal(await operators.changeRole(second, "viewer", ADMIN, NOW), "done");
    assert.equal(await operators.invitation(bySecond, NOW + 1000), null, "the demoted admin's invite is gone");
    assert.equal(await operators.removeByAdmin(third, ADMIN, NOW), "done");
    assert.equal(await operators.invitation(byThird, NOW + 1000), null, "the removed admin's invite is gone");
    assert.equal((await operators.invitation(byAdmin, NOW + 1000))?.email, "c@example.com", "others' invites stay");
  });

  test("two admins demoting each other at once leave one admin", async () => {
    const first = (await operators.findByEmail("admin@example.com"))!;
    const second = (await operators.create("second@example.com", "admin", PASSWORD, CLI_ACTOR))!;
    const outcomes = await Promise.all([
      operators.changeRole(first, "viewer", ADMIN, NOW),
      operators.changeRole(second, "viewer", { actor: second.email, sourceAddress: null }, NOW),
    ]);
    assert.deepEqual([...outcomes].sort(), ["done", "last_admin"]);
    const admins = (await operators.list()).filter((o) => o.role === "admin");
    assert.equal(admins.length, 1);
    assert.equal((await entries("operator.role")).length, 1, "only the change made is audited");
  });

  test("removal ends the sessions; an admin cannot remove themselves, and the last admin is never removed", async () => {
    const admin = (await operators.findByEmail("admin@example.com"))!;
    const viewer = (await operators.create("gone@example.com", "viewer", PASSWORD, CLI_ACTOR))!;
    await operators.signIn(viewer, CLI_ACTOR, NOW, { idleMs: 60_000, maxMs: 3_600_000 });
    assert.equal(await operators.removeByAdmin(admin, ADMIN, NOW), "self");
    assert.equal(
      await operators.removeByAdmin(admin, { actor: "other@example.com", sourceAddress: null }, NOW),
      "last_admin",
    );
    assert.equal(await operators.removeByAdmin(viewer, ADMIN, NOW), "done");
    assert.equal(await operators.find(viewer.id), null);
    assert.equal(await storage.operators.purgeSessions(new Date(NOW + 10 * 3_600_000).toISOString(), ""), 0);
    assert.equal(await operators.removeByAdmin(viewer, ADMIN, NOW), "unknown");
    assert.deepEqual(await entries("operator.remove"), [[ADMIN.actor, "gone@example.com", {}]]);
  });
});
