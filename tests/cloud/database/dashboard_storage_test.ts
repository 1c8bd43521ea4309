// The storage the dashboard and the audit log need — operators, sessions, setup
// tokens, the audit log, project administration and the dashboard's reads — on
// `:memory:`, `file:` and the remote `http://` path.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createProject } from "../../../cloud/projects/projects.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import type { OperatorRecord } from "../../../cloud/operators/mod.ts";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import { storageBackends } from "./storage_backends.ts";

const backends = storageBackends();
const AT = "2025-03-01T12:00:00.000Z";

function operator(email: string, role: OperatorRecord["role"] = "admin"): OperatorRecord {
  return {
    id: `op_${crypto.randomUUID()}`,
    email,
    role,
    passwordHash: "scrypt$hash",
    totpSecret: null,
    recoveryCodeHashes: [],
    createdAt: AT,
    updatedAt: AT,
  };
}

function deletion(projectId: string) {
  return {
    projectId,
    actor: "cli",
    action: "project.delete",
    target: projectId,
    detail: {},
    sourceAddress: null as string | null,
    createdAt: AT,
  };
}

function violation(keyId: string, severity: "info" | "warning" | "severe", createdAt: string) {
  return {
    id: crypto.randomUUID(),
    keyId,
    userId: null,
    intent: null,
    kind: "K",
    severity,
    message: null,
    metadata: {},
    createdAt,
  };
}

for (const [name, open] of backends.list) {
  describe(`Dashboard storage on ${name}`, () => {
    let storage: CloudRepositories;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    test("a setup token creates the first operator once, and never when one exists", async () => {
      const first = operator("First@Example.com");
      await storage.operators.createSetupToken({
        tokenHash: "t1",
        createdAt: AT,
        expiresAt: "2025-03-01T13:00:00.000Z",
      });
      await storage.operators.createSetupToken({
        tokenHash: "old",
        createdAt: AT,
        expiresAt: "2025-03-01T12:00:00.000Z",
      });
      assert.equal(await storage.operators.setupTokenValid("t1", AT), true);
      assert.equal(await storage.operators.setupTokenValid("old", AT), false, "an expired token is not valid");
      assert.equal(await storage.operators.setupFirstOperator("old", operator("x@example.com"), AT), false);
      assert.equal(await storage.operators.countOperators(), 0, "an expired token stores nothing");
      assert.equal(await storage.operators.setupFirstOperator("t1", first, AT), true);
      assert.equal(await storage.operators.setupFirstOperator("t1", operator("again@example.com"), AT), false);
      await storage.operators.createSetupToken({
        tokenHash: "t2",
        createdAt: AT,
        expiresAt: "2025-03-01T13:00:00.000Z",
      });
      assert.equal(await storage.operators.setupTokenValid("t2", AT), false, "no setup once an operator exists");
      assert.equal(await storage.operators.setupFirstOperator("t2", operator("late@example.com"), AT), false);
      assert.deepEqual((await storage.operators.listOperators()).map((o) => o.email), ["first@example.com"]);
    });

    test("operators are unique by email in any case, change, and are removed with their sessions", async () => {
      const viewer = operator("viewer@example.com", "viewer");
      assert.equal(await storage.operators.createOperator(viewer), true);
      assert.equal(await storage.operators.createOperator(operator("VIEWER@example.com")), false);
      assert.deepEqual(await storage.operators.findOperatorByEmail("Viewer@Example.COM"), viewer);
      assert.deepEqual(await storage.operators.findOperator(viewer.id), viewer);
      assert.equal(await storage.operators.findOperator("op_unknown"), null);

      const session = {
        tokenHash: crypto.randomUUID(),
        operatorId: viewer.id,
        createdAt: AT,
        lastSeenAt: AT,
        expiresAt: "2025-03-02T12:00:00.000Z",
        sourceAddress: "127.0.0.1",
      };
      await storage.operators.createSession(session);
      assert.deepEqual(await storage.operators.findSession(session.tokenHash), { session, operator: viewer });
      assert.equal(await storage.operators.updateOperator(viewer.id, { totpSecret: "JBSWY3DPEHPK3PXP" }, AT), true);
      assert.ok(await storage.operators.findSession(session.tokenHash), "a second factor leaves sessions open");
      assert.equal(await storage.operators.updateOperator(viewer.id, { passwordHash: "scrypt$new" }, AT), true);
      assert.equal(await storage.operators.findSession(session.tokenHash), null, "a new password ends the sessions");
      const changed = await storage.operators.findOperator(viewer.id);
      assert.equal(changed?.passwordHash, "scrypt$new");
      assert.equal(changed?.totpSecret, "JBSWY3DPEHPK3PXP");
      assert.equal(changed?.role, "viewer");
      assert.equal(await storage.operators.updateOperator("op_unknown", { role: "admin" }, AT), false);

      await storage.operators.createSession({ ...session, tokenHash: "again" });
      assert.equal(await storage.operators.removeOperator(viewer.id), true);
      assert.equal(await storage.operators.findSession("again"), null);
      assert.equal(await storage.operators.removeOperator(viewer.id), false);
    });

    test("a recovery code is spent once", async () => {
      const op = { ...operator("codes@example.com"), recoveryCodeHashes: ["c1", "c2"] };
      await storage.operators.createOperator(op);
      assert.equal(await storage.operators.spendRecoveryCode(op.id, "c1", AT), true);
      assert.equal(await storage.operators.spendRecoveryCode(op.id, "c1", AT), false);
      assert.equal(await storage.operators.spendRecoveryCode(op.id, "nope", AT), false);
      assert.deepEqual((await storage.operators.findOperator(op.id))?.recoveryCodeHashes, ["c2"]);
    });

    test("a TOTP step is spent once, and only a later one after it, even by concurrent sign-ins", async () => {
      const op = operator("steps@example.com");
      await storage.operators.createOperator(op);
      const step = 58_000_000;
      assert.deepEqual(
        await Promise.all([storage.operators.spendTotpStep(op.id, step), storage.operators.spendTotpStep(op.id, step)])
          .then((r) => r.sort()),
        [false, true],
      );
      assert.equal(await storage.operators.spendTotpStep(op.id, step - 1), false, "an older step after a newer one");
      assert.equal(await storage.operators.spendTotpStep(op.id, step + 1), true);
      assert.equal(await storage.operators.spendTotpStep("op_unknown", step + 2), false);
    });

    test("sessions are touched, ended, and purged when expired or idle", async () => {
      const op = operator("sessions@example.com");
      await storage.operators.createOperator(op);
      const base = { operatorId: op.id, createdAt: AT, lastSeenAt: AT, sourceAddress: null };
      await storage.operators.createSession({ ...base, tokenHash: "live", expiresAt: "2025-03-02T00:00:00.000Z" });
      await storage.operators.createSession({ ...base, tokenHash: "expired", expiresAt: "2025-03-01T12:30:00.000Z" });
      await storage.operators.createSession({ ...base, tokenHash: "idle", expiresAt: "2025-03-02T00:00:00.000Z" });
      await storage.operators.touchSession("live", "2025-03-01T13:00:00.000Z");
      assert.equal((await storage.operators.findSession("live"))?.session.lastSeenAt, "2025-03-01T13:00:00.000Z");
      assert.equal(await storage.operators.purgeSessions("2025-03-01T13:00:00.000Z", "2025-03-01T12:30:00.000Z"), 2);
      assert.ok(await storage.operators.findSession("live"));
      assert.equal(await storage.operators.deleteSession("live"), true);
      assert.equal(await storage.operators.deleteSession("live"), false);
    });

    test("the audit log lists newest first with filters and a total, and refuses changes", async () => {
      const entry = {
        projectId: "prj_audit",
        actor: "cli",
        action: "project.create",
        target: "prj_audit",
        detail: { name: "A" },
        sourceAddress: null,
      };
      const first = await storage.audit.appendAudit({ ...entry, createdAt: "2025-01-01T00:00:00.000Z" });
      const second = await storage.audit.appendAudit({
        ...entry,
        action: "key.revoke",
        actor: "ops@example.com",
        target: "key-1",
        detail: { reason: "dashboard" },
        sourceAddress: "127.0.0.1",
        createdAt: "2025-01-02T00:00:00.000Z",
        receivedAt: "2025-01-02T00:00:00.000Z",
      });
      await storage.audit.appendAudit({ ...entry, projectId: null, action: "operator.sign_in", createdAt: AT });
      assert.ok(second > first);
      const all = await storage.audit.listAudit({ projectId: "prj_audit", limit: 10, offset: 0 });
      assert.equal(all.total, 2);
      assert.deepEqual(all.entries.map((e) => e.action), ["key.revoke", "project.create"]);
      assert.deepEqual(all.entries[0], {
        id: second,
        projectId: "prj_audit",
        actor: "ops@example.com",
        action: "key.revoke",
        target: "key-1",
        detail: { reason: "dashboard" },
        sourceAddress: "127.0.0.1",
        createdAt: "2025-01-02T00:00:00.000Z",
        receivedAt: "2025-01-02T00:00:00.000Z",
      });
      const page = await storage.audit.listAudit({
        action: "project.create",
        since: "2025-01-01T00:00:00.000Z",
        limit: 1,
        offset: 0,
      });
      assert.deepEqual([page.total, page.entries[0].id], [1, first]);
      assert.equal((await storage.audit.listAudit({ limit: 1, offset: 1 })).entries.length, 1);
      assert.equal(
        (await storage.audit.listAudit({ since: "2025-02-01T00:00:00.000Z", limit: 10, offset: 0 })).total,
        1,
      );
    });

    test("renames a project, keeps its retention, and deletes it with everything it holds", async () => {
      const { project } = await createProject(storage, "Doomed");
      const { record } = await mintAgentKey("alice", { name: "k", scopes: [], agentId: "alice" });
      await storage.keys.insertKey(project.id, record, "user");
      await storage.violations.addViolation(project.id, violation(record.id, "severe", AT));
      await storage.inbox.appendEvents(project.id, [{ eventId: "e", type: "t", agentId: "alice", payload: {} }], AT);
      await storage.projects.putManifest(project.id, { intents: [], scopes: ["x"], updatedAt: AT });
      assert.equal(await storage.projects.renameProject(project.id, "Renamed"), true);
      assert.equal((await storage.projects.findProject(project.id))?.name, "Renamed");
      assert.equal(await storage.projects.renameProject("prj_unknown", "x"), false);

      assert.equal((await storage.projects.projectPolicy(project.id)).retentionMs, null);
      assert.equal(await storage.projects.setProjectRetention(project.id, 86_400_000, AT), true);
      assert.equal((await storage.projects.projectPolicy(project.id)).retentionMs, 86_400_000);
      assert.equal(await storage.projects.setProjectRetention(project.id, null, AT), true);
      assert.equal((await storage.projects.projectPolicy(project.id)).retentionMs, null);
      assert.equal(await storage.projects.setProjectRetention("prj_unknown", 1, AT), false);

      const entry = deletion(project.id);
      assert.equal(await storage.projects.deleteProject(project.id, entry), true);
      assert.equal(await storage.projects.findProject(project.id), null);
      assert.equal(await storage.keys.findKeyByHash(record.hash), null);
      assert.equal((await storage.violations.listViolations(project.id, { limit: 10, offset: 0 })).total, 0);
      assert.deepEqual(await storage.violations.violationBuckets(project.id, "2025-01-01T00", "hour"), []);
      assert.deepEqual(await storage.inbox.inboxBacklog(project.id), []);
      assert.deepEqual(await storage.projects.getManifest(project.id), { intents: [], scopes: [], updatedAt: null });
      const audit = { projectId: project.id, action: "project.delete", limit: 10, offset: 0 };
      assert.equal((await storage.audit.listAudit(audit)).total, 1, "the delete wrote its own audit entry");
      assert.equal(await storage.projects.deleteProject(project.id, entry), false);
      assert.equal((await storage.audit.listAudit(audit)).total, 1, "an unknown project's delete writes no entry");
    });

    if (name.startsWith("remote")) {
      test("deletes a project, with its audit entry, in one round trip to the remote database", async () => {
        const { project } = await createProject(storage, "One trip");
        const entry = { ...deletion(project.id), sourceAddress: "203.0.113.7" };
        const before = backends.remoteRequests();
        assert.equal(await storage.projects.deleteProject(project.id, entry), true);
        assert.equal(backends.remoteRequests() - before, 1, "one request: a batch, not a transaction held open");
        const audit = { projectId: project.id, action: "project.delete", limit: 10, offset: 0 };
        assert.equal((await storage.audit.listAudit(audit)).entries[0]?.sourceAddress, "203.0.113.7");
      });
    }

    test("purges acknowledged items by a project's own retention, and the rest by the default", async () => {
      const own = (await createProject(storage, "Short retention")).project.id;
      const other = (await createProject(storage, "Default retention")).project.id;
      for (const project of [own, other]) {
        const [r] = await storage.inbox.appendEvents(
          project,
          [{ eventId: "r", type: "t", agentId: "a", payload: {} }],
          AT,
        );
        await storage.inbox.acknowledge(project, "a", [r.inboxId], new Date(Date.now() - 60_000).toISOString());
      }
      await storage.projects.setProjectRetention(own, 1000, AT);
      assert.equal(await storage.inbox.purgeAcknowledged("2000-01-01T00:00:00.000Z"), 1);
      assert.equal(
        (await storage.inbox.appendEvents(own, [{ eventId: "r", type: "t", agentId: "a", payload: {} }], AT))[0]
          .duplicate,
        false,
      );
      assert.equal(
        (await storage.inbox.appendEvents(other, [{ eventId: "r", type: "t", agentId: "a", payload: {} }], AT))[0]
          .duplicate,
        true,
      );
    });

    test("lists a project's keys across users with filters, counts them, and finds one", async () => {
      const { project } = await createProject(storage, "Keys");
      const keys = [];
      for (const [i, user] of ["ann", "ben", "ann"].entries()) {
        const { record } = await mintAgentKey(user, { name: `k${i}`, scopes: ["a"], agentId: user });
        keys.push({ ...record, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` });
        await storage.keys.insertKey(project.id, keys[i], "user");
      }
      await storage.keys.revokeKey(project.id, keys[0].id, AT, "dashboard");
      const all = await storage.keys.listProjectKeys(project.id, { limit: 10, offset: 0 });
      assert.equal(all.total, 3);
      assert.deepEqual(all.keys.map((k) => k.name), ["k2", "k1", "k0"]);
      const ann = await storage.keys.listProjectKeys(project.id, {
        userId: "ann",
        status: "active",
        limit: 10,
        offset: 0,
      });
      assert.deepEqual([ann.total, ann.keys.map((k) => k.name)], [1, ["k2"]]);
      const revoked = await storage.keys.listProjectKeys(project.id, { status: "revoked", limit: 10, offset: 0 });
      assert.deepEqual(revoked.keys.map((k) => k.revokedAt), [AT]);
      const second = await storage.keys.listProjectKeys(project.id, { limit: 1, offset: 1 });
      assert.deepEqual([second.total, second.keys[0].name], [3, "k1"]);
      assert.deepEqual(await storage.keys.countKeys(project.id), { active: 2, revoked: 1 });
      assert.deepEqual(await storage.keys.countKeys("prj_none"), { active: 0, revoked: 0 });
      assert.equal((await storage.keys.findProjectKey(project.id, keys[1].id))?.userId, "ben");
      assert.equal(await storage.keys.findProjectKey("prj_other", keys[1].id), null);
    });

    test("shows the inbox backlog and waiting items without counting a delivery, and discards one", async () => {
      const { project } = await createProject(storage, "Inbox");
      await storage.inbox.appendEvents(project.id, [
        { eventId: "a1", type: "t", agentId: "a", payload: { n: 1 } },
        { eventId: "a2", type: "t", agentId: "a", payload: { n: 2 } },
      ], "2025-01-01T00:00:00.000Z");
      await storage.inbox.appendEvents(project.id, [{ eventId: "b1", type: "t", agentId: "b", payload: {} }], AT);
      await storage.inbox.listInbox(project.id, "a", 0, 1, new Date().toISOString());
      await storage.inbox.listInbox(project.id, "a", 0, 1, new Date().toISOString());
      assert.deepEqual(await storage.inbox.inboxBacklog(project.id), [
        { agentId: "a", waiting: 2, oldestAt: "2025-01-01T00:00:00.000Z", maxDeliveries: 2 },
        { agentId: "b", waiting: 1, oldestAt: AT, maxDeliveries: 0 },
      ]);
      const peek = await storage.inbox.peekInbox(project.id, "a", { status: "waiting", limit: 10, offset: 0 });
      assert.equal(peek.total, 2);
      assert.deepEqual(peek.items.map((i) => [i.eventId, i.payload, i.deliveries]), [["a1", { n: 1 }, 2], [
        "a2",
        { n: 2 },
        0,
      ]]);
      const again = await storage.inbox.peekInbox(project.id, "a", { status: "waiting", limit: 10, offset: 0 });
      assert.deepEqual(again.items.map((i) => i.deliveries), [2, 0]);
      assert.equal(await storage.inbox.discardInboxItem("prj_other", "a", peek.items[0].inboxId, AT), false);
      assert.equal(await storage.inbox.discardInboxItem(project.id, "b", peek.items[0].inboxId, AT), false);
      assert.equal(await storage.inbox.discardInboxItem(project.id, "a", peek.items[0].inboxId, AT), true);
      assert.equal(await storage.inbox.discardInboxItem(project.id, "a", peek.items[0].inboxId, AT), false);
      assert.deepEqual(
        (await storage.inbox.listInbox(project.id, "a", 0, 10, new Date().toISOString())).map((i) => i.eventId),
        ["a2"],
      );
    });

    test("shows an inbox's acknowledged items newest first with their time, and all items merged", async () => {
      const { project } = await createProject(storage, "Acknowledged");
      const events = ["e1", "e2", "e3", "e4"].map((eventId) => ({ eventId, type: "t", agentId: "a", payload: {} }));
      const ids = (await storage.inbox.appendEvents(project.id, events, AT)).map((r) => r.inboxId);
      await storage.inbox.appendEvents(project.id, [{ eventId: "other", type: "t", agentId: "b", payload: {} }], AT);
      await storage.inbox.listInbox(project.id, "a", 0, 10, new Date().toISOString());
      await storage.inbox.acknowledge(project.id, "a", [ids[0], ids[2]], "2025-03-01T12:05:00.000Z");
      await storage.inbox.discardInboxItem(project.id, "a", ids[3], "2025-03-01T12:06:00.000Z");
      const peek = (status: "waiting" | "acknowledged" | undefined, limit = 10, offset = 0) =>
        storage.inbox.peekInbox(project.id, "a", { status, limit, offset });
      const acknowledged = await peek("acknowledged");
      assert.equal(acknowledged.total, 3);
      assert.deepEqual(acknowledged.items.map((i) => [i.eventId, i.acknowledgedAt, i.deliveries]), [
        ["e4", "2025-03-01T12:06:00.000Z", 1],
        ["e3", "2025-03-01T12:05:00.000Z", 1],
        ["e1", "2025-03-01T12:05:00.000Z", 1],
      ]);
      const waiting = await peek("waiting");
      assert.deepEqual([waiting.total, waiting.items.map((i) => [i.eventId, i.acknowledgedAt])], [1, [["e2", null]]]);
      const all = await peek(undefined);
      assert.deepEqual([all.total, all.items.map((i) => i.eventId)], [4, ["e4", "e3", "e2", "e1"]]);
      const second = await peek(undefined, 2, 2);
      assert.deepEqual([second.total, second.items.map((i) => i.eventId)], [4, ["e2", "e1"]]);
      assert.deepEqual((await storage.inbox.peekInbox("prj_other", "a", { limit: 10, offset: 0 })).total, 0);
      await storage.inbox.purgeAcknowledged("2025-03-01T12:05:30.000Z");
      assert.deepEqual((await peek("acknowledged")).items.map((i) => i.eventId), ["e4"], "purged items are gone");
    });

    test("counts violations by hour and by day and severity, from the triggers", async () => {
      const { project } = await createProject(storage, "Chart");
      const at = ["2025-01-01T10:05:00.000Z", "2025-01-01T10:59:59.999Z", "2025-01-01T11:00:00.000Z", AT];
      await storage.violations.addViolation(project.id, violation("k", "severe", at[0]));
      await storage.violations.addViolation(project.id, violation("k", "severe", at[1]));
      await storage.violations.addViolation(project.id, violation("k", "info", at[2]));
      await storage.violations.addViolation(project.id, violation("k", "warning", at[3]));
      assert.deepEqual(await storage.violations.violationBuckets(project.id, "2025-01-01T10:30:00.000Z", "hour"), [
        { bucket: "2025-01-01T10", severity: "severe", count: 2 },
        { bucket: "2025-01-01T11", severity: "info", count: 1 },
        { bucket: "2025-03-01T12", severity: "warning", count: 1 },
      ]);
      assert.deepEqual(await storage.violations.violationBuckets(project.id, "2025-01-01T00:00:00.000Z", "day"), [
        { bucket: "2025-01-01", severity: "info", count: 1 },
        { bucket: "2025-01-01", severity: "severe", count: 2 },
        { bucket: "2025-03-01", severity: "warning", count: 1 },
      ]);
      assert.deepEqual(await storage.violations.violationBuckets(project.id, "2025-02-01T00:00:00.000Z", "day"), [
        { bucket: "2025-03-01", severity: "warning", count: 1 },
      ]);
    });
  });
}

test("the remote backend really went over Hrana HTTP", () => {
  assert.ok(backends.remoteRequests() > 10);
});
