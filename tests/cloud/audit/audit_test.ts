// @slow: subprocesses (the command line)
// The audit log: an entry for each action, GET /v1/sdk/audit with its filters
// and paging, and `audit list` / `project policy` on the command line.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import { deleteProject, renameProject, rotateSdkSecret } from "../../../cloud/projects/projects.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { cliCommand, run } from "../../fixtures/subprocess.ts";
import { listen } from "../../fixtures/servers.ts";
import { runtime } from "../../fixtures/runtime.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

interface Entry {
  id: number;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  sourceAddress: string | null;
  createdAt: string;
}

describe("GET /v1/sdk/audit", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("records project create, rename, rotation, key revokes with their reason and policy changes, newest first", async () => {
    const p = await t.newProject("audited");
    assert.equal(await renameProject(t.storage, p.id, "renamed"), true);
    const secret = (await rotateSdkSecret(t.storage, p.id))!;
    const as = { id: p.id, secret };
    const k = await t.mintKey("u", {}, as);
    await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as });
    const { record } = await mintAgentKey("v", { name: "m", scopes: [], agentId: "v" });
    const body = { ...record, lastUsedAt: undefined, id: undefined, revokedAt: new Date().toISOString() };
    await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { as, body });
    await t.sdk("PUT", "/v1/sdk/policy", {
      as,
      body: { autoRevoke: { threshold: 9, windowMinutes: 9 }, retentionDays: 2 },
    });

    const res = await t.sdk("GET", "/v1/sdk/audit", { as });
    assert.equal(res.status, 200);
    const entries: Entry[] = res.body.entries;
    assert.equal(res.body.total, 9);
    const created = (userId: string, name: string) => ({ name, userId, agentId: userId, scopes: [], expiresAt: null });
    assert.deepEqual(entries.map((e) => [e.actor, e.action, e.target, e.detail]).reverse(), [
      ["cli", "project.create", p.id, { name: "audited" }],
      ["cli", "project.rename", p.id, { from: "audited", to: "renamed" }],
      ["cli", "project.rotate_secret", p.id, {}],
      ["sdk", "key.create", k.id, created("u", "k")],
      ["sdk", "key.revoke", k.id, { reason: "tooling" }],
      // A hybrid app's mirror: the app acts for its user, creating and revoking the key.
      ["app", "key.create", record.id, created("v", "m")],
      ["app", "key.revoke", record.id, { reason: "app" }],
      ["sdk", "policy.auto_revoke", p.id, { autoRevoke: { threshold: 9, windowMinutes: 9 } }],
      ["sdk", "policy.retention", p.id, { retentionDays: 2 }],
    ]);
    for (const e of entries) {
      assert.deepEqual(Object.keys(e).sort(), [
        "action",
        "actor",
        "createdAt",
        "detail",
        "id",
        "receivedAt",
        "sourceAddress",
        "target",
      ]);
      assert.equal(e.sourceAddress, null, "no address without a server that gives one");
    }
    const text = JSON.stringify(res.body);
    assert.equal(text.includes(secret) || text.includes(p.secret) || text.includes(k.key), false, "never a secret");
    assert.equal(/svcs_|svc_live_/.test(text), false);
  });

  test("a key mirrored already revoked lists its creation before its revocation, however the clock moves", async () => {
    // A clock that moves a millisecond at every read: the two entries must not each read it.
    let tick = Date.parse("2026-01-02T03:04:05.000Z");
    const ticking = await startTestCloud({ now: () => tick++ });
    try {
      const { record } = await mintAgentKey("w", { name: "m", scopes: [], agentId: "w" });
      const body = { ...record, lastUsedAt: undefined, id: undefined, revokedAt: new Date(tick).toISOString() };
      assert.equal((await ticking.sdk("PUT", `/v1/sdk/keys/${record.id}`, { body })).status, 200);
      const res = await ticking.sdk("GET", `/v1/sdk/audit?key=${record.id}`);
      const entries: Entry[] = res.body.entries;
      assert.deepEqual(entries.map((e) => e.action), ["key.revoke", "key.create"], "newest first");
      assert.equal(entries[0].createdAt, entries[1].createdAt);
    } finally {
      await ticking.close();
    }
  });

  test("filters by action and since, pages with limit and offset, and shows a project only its own", async () => {
    const p = await t.newProject("paged");
    for (let i = 0; i < 3; i++) {
      const k = await t.mintKey(`k${i}`, {}, p);
      await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: p });
    }
    const revokes = await t.sdk("GET", "/v1/sdk/audit?action=key.revoke&limit=2", { as: p });
    assert.equal(revokes.body.total, 3);
    assert.equal(revokes.body.entries.length, 2);
    const rest = await t.sdk("GET", "/v1/sdk/audit?action=key.revoke&limit=2&offset=2", { as: p });
    assert.equal(rest.body.entries.length, 1);
    const ids = [...revokes.body.entries, ...rest.body.entries].map((e: Entry) => e.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a), "newest first");
    const future = await t.sdk("GET", "/v1/sdk/audit?since=2999-01-01", { as: p });
    assert.deepEqual(future.body, { entries: [], total: 0 });
    const other = await t.newProject("other");
    const theirs = await t.sdk("GET", "/v1/sdk/audit", { as: other });
    assert.deepEqual(theirs.body.entries.map((e: Entry) => e.action), ["project.create"]);
    const bad = await t.sdk("GET", "/v1/sdk/audit?since=yesterday", { as: p });
    assert.equal(bad.status, 400);
  });

  test("filters by key: only the entries about that key, none about another project's key of the same id", async () => {
    const p = await t.newProject("by key");
    const [first, second] = [await t.mintKey("ann", {}, p), await t.mintKey("bob", {}, p)];
    for (const k of [first, second]) await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: p });
    const one = await t.sdk("GET", `/v1/sdk/audit?key=${first.id}`, { as: p });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.entries.map((e: Entry) => [e.action, e.target]), [
      ["key.revoke", first.id],
      ["key.create", first.id],
    ]);
    assert.equal(one.body.total, 2);
    const other = await t.newProject("other keys");
    assert.deepEqual((await t.sdk("GET", `/v1/sdk/audit?key=${first.id}`, { as: other })).body, {
      entries: [],
      total: 0,
    });
    assert.equal((await t.sdk("GET", `/v1/sdk/audit?key=${"k".repeat(101)}`, { as: p })).status, 400);
  });

  test("keeps a deleted project's entries, the deletion included", async () => {
    const p = await t.newProject("doomed");
    assert.equal(await deleteProject(t.storage, p.id), true);
    const page = await t.storage.audit.listAudit({ projectId: p.id, limit: 10, offset: 0 });
    assert.deepEqual(page.entries.map((e) => e.action), ["project.delete", "project.create"]);
    assert.deepEqual(page.entries[0].detail, { name: "doomed" });
  });

  test("a project's deletion and its audit entry are one transaction: when the entry fails, the project stays", async () => {
    const p = await t.newProject("kept");
    // A forced failure of the audit write, as a crash between the two would be.
    await t.client.execute(`CREATE TRIGGER refuse_delete_entry BEFORE INSERT ON cloud_audit
      WHEN NEW.action = 'project.delete' BEGIN SELECT RAISE(ABORT, 'forced'); END`);
    try {
      await assert.rejects(deleteProject(t.storage, p.id), /forced/);
    } finally {
      await t.client.execute("DROP TRIGGER refuse_delete_entry");
    }
    assert.equal((await t.storage.projects.findProject(p.id))?.name, "kept", "the project is still there");
    assert.equal((await t.sdk("GET", "/v1/sdk/intents", { as: p })).status, 200, "and its secret still works");
    const deletions = await t.storage.audit.listAudit({
      projectId: p.id,
      action: "project.delete",
      limit: 10,
      offset: 0,
    });
    assert.equal(deletions.total, 0);
  });

  test("when a project's deletion fails, or the project does not exist, no audit entry is written", async () => {
    const p = await t.newProject("undeletable");
    await t.client.execute(`CREATE TRIGGER refuse_project_delete BEFORE DELETE ON cloud_projects
      BEGIN SELECT RAISE(ABORT, 'forced'); END`);
    try {
      await assert.rejects(deleteProject(t.storage, p.id), /forced/);
    } finally {
      await t.client.execute("DROP TRIGGER refuse_project_delete");
    }
    assert.ok(await t.storage.projects.findProject(p.id));
    assert.equal(await deleteProject(t.storage, "prj_01JABCDEFGHJKMNPQRSTVWXYZ0"), false);
    for (const projectId of [p.id, "prj_01JABCDEFGHJKMNPQRSTVWXYZ0"]) {
      const entries = await t.storage.audit.listAudit({ projectId, action: "project.delete", limit: 10, offset: 0 });
      assert.equal(entries.total, 0, projectId);
    }
  });
});

test(`over a real socket (${runtime}'s adapter), sourceAddress is the client's address, 127.0.0.1`, async () => {
  const t = await startTestCloud();
  const server = await listen(t.cloud.handle);
  const headers = { authorization: `Bearer ${t.project.secret}`, "x-svc-project": t.project.id };
  try {
    const { id } = await t.mintKey("u");
    const revoke = await fetch(`${server.url}/v1/sdk/keys/${id}`, { method: "DELETE", headers });
    assert.equal(revoke.status, 200, await revoke.text());
    const res = await fetch(`${server.url}/v1/sdk/audit?action=key.revoke`, { headers });
    const { entries } = await res.json();
    assert.equal(entries.length, 1);
    assert.equal(entries[0].sourceAddress, "127.0.0.1");
  } finally {
    await server.close();
    await t.close();
  }
});

describe("cloud/main.ts project policy and audit list", () => {
  const dir = tempDir();
  after(() => dir.remove());
  const cli = (...args: string[]) => run([...cliCommand(), ...args], dir.path);

  test("sets the auto-revoke policy, shows it, and lists the audit log as JSON", async () => {
    const created = JSON.parse((await cli("project", "create", "--name", "Cli", "--json")).stdout);
    const set = await cli(
      "project",
      "policy",
      created.projectId,
      "--auto-revoke-threshold",
      "4",
      "--auto-revoke-window",
      "15",
      "--json",
    );
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout), {
      projectId: created.projectId,
      autoRevoke: { threshold: 4, windowMinutes: 15 },
      retentionDays: null,
      keyLifetime: null,
      inbox: { maxDeliveries: 5 },
    });
    const shown = await cli("project", "policy", created.projectId);
    assert.match(shown.stdout, /auto-revoke: On: 4 counted violations of one key within 15 minutes revoke it/);
    const bad = await cli(
      "project",
      "policy",
      created.projectId,
      "--auto-revoke-threshold",
      "0",
      "--auto-revoke-window",
      "5",
    );
    assert.equal(bad.code, 2);

    const audit = await cli("audit", "list", "--project", created.projectId, "--json");
    assert.equal(audit.code, 0, audit.stderr);
    const out = JSON.parse(audit.stdout);
    assert.deepEqual(out.entries.map((e: Entry) => [e.actor, e.action]), [
      ["cli", "policy.auto_revoke"],
      ["cli", "project.create"],
    ]);
    assert.equal(audit.stdout.includes(created.sdkSecret), false);
    const text = await cli("audit", "list", "--action", "project.create");
    assert.match(text.stdout, /cli {2}project\.create {2}prj_/);
  });
});
