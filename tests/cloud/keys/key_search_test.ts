// The operator's key search: a prefix of the name, the start or the user, with the status filter and paging,
// each prefix an index range (never a scan of the project's keys).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, createClient } from "@libsql/client";
import type { KeyRecord } from "../../../core/contract/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { keySearchStatements, prefixRange } from "../../../cloud/keys/mod.ts";

let n = 0;
function keyRecord(userId: string, name: string, start: string): KeyRecord {
  const id = crypto.randomUUID();
  return {
    id,
    userId,
    name,
    scopes: [],
    agentId: userId,
    hash: id.replaceAll("-", "").padEnd(64, "0"),
    start,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, n++)).toISOString(),
    lastUsedAt: null,
    revokedAt: null,
  };
}

describe("searching a project's keys", () => {
  let storage: CloudRepositories;
  let client: Client;
  let projectId: string;
  const names = async (search: string, extra: { status?: "active" | "revoked"; userId?: string } = {}) =>
    (await storage.keys.listProjectKeys(projectId, { search, ...extra, limit: 50, offset: 0 })).keys.map((k) => k.name)
      .sort();

  before(async () => {
    client = createClient({ url: ":memory:" });
    storage = await openCloudStorage(client);
    projectId = (await createProject(storage, "A")).project.id;
    const other = (await createProject(storage, "B")).project.id;
    for (
      const [user, name, start] of [
        ["alice", "billing-agent", "svc_live_Abc"],
        ["alice", "support-bot", "svc_live_Xyz"],
        ["bob", "Billing-old", "svc_live_Abd"],
        ["billy", "reports", "svc_live_Qrs"],
        ["carol", "50%_off", "svc_live_Zzz"],
      ]
    ) await storage.keys.insertKey(projectId, keyRecord(user, name, start), "user");
    await storage.keys.insertKey(other, keyRecord("alice", "billing-elsewhere", "svc_live_Abc"), "user");
  });
  after(async () => {
    await storage.close();
    client.close();
  });

  test("a prefix matches the name, the start or the user, case-sensitively, in this project only", async () => {
    assert.deepEqual(await names("bill"), ["billing-agent", "reports"], "name billing-…, user billy");
    assert.deepEqual(await names("Bill"), ["Billing-old"]);
    assert.deepEqual(await names("svc_live_Ab"), ["Billing-old", "billing-agent"]);
    assert.deepEqual(await names("alice"), ["billing-agent", "support-bot"]);
    assert.deepEqual(await names("ort"), [], "a prefix, not a substring");
    assert.deepEqual(await names("50%_"), ["50%_off"], "% and _ are plain characters");
    assert.deepEqual(await names("5_%"), []);
    await storage.keys.insertKey(projectId, keyRecord("dup", "dup-key", "svc_live_Dup"), "user");
    const twice = await storage.keys.listProjectKeys(projectId, { search: "dup", limit: 50, offset: 0 });
    assert.deepEqual([twice.keys.length, twice.total], [1, 1], "a key matching by name and by user is one match");
  });

  test("the search combines with the user and status filters, and counts every match", async () => {
    const [billing] = (await storage.keys.listProjectKeys(projectId, { search: "billing", limit: 1, offset: 0 }))
      .keys;
    await storage.keys.revokeKey(projectId, billing.id, new Date().toISOString(), "dashboard");
    assert.deepEqual(await names("svc_live_", { status: "revoked" }), ["billing-agent"]);
    assert.deepEqual(await names("svc_live_", { status: "active", userId: "alice" }), ["support-bot"]);
    const page = await storage.keys.listProjectKeys(projectId, { search: "svc_live_", limit: 2, offset: 2 });
    assert.deepEqual([page.keys.length, page.total], [2, 6]);
  });

  test("each prefix is a range on an index: the plan scans no table", async () => {
    const { page } = keySearchStatements(projectId, { search: "bill", status: "active", limit: 50, offset: 0 });
    const plan = await client.execute({ sql: `EXPLAIN QUERY PLAN ${page.sql}`, args: [...page.args ?? []] });
    const steps = plan.rows.map((r) => String(r.detail));
    for (const index of ["cloud_keys_by_name", "cloud_keys_by_start", "cloud_keys_by_user"]) {
      assert.ok(
        steps.some((s) => s.includes(`COVERING INDEX ${index}`) && /[<>]/.test(s)),
        `${index} range, covering, in ${steps.join(" | ")}`,
      );
    }
    assert.ok(!steps.some((s) => /^SCAN cloud_keys\b/.test(s)), steps.join(" | "));
  });

  test("prefixRange's upper bound is above every text that begins with the prefix, in SQLite's order", async () => {
    const { from, to } = prefixRange("ab");
    for (const text of ["ab", "ab\u0000", "abz", "ab\uFFFF", "ab\u{10FFFE}x", "ab\u{10FFFF}"]) {
      const rs = await client.execute({ sql: "SELECT ? >= ? AND ? < ? AS inside", args: [text, from, text, to] });
      assert.equal(rs.rows[0].inside, text === "ab\u{10FFFF}" ? 0 : 1, JSON.stringify(text));
    }
    const rs = await client.execute({ sql: "SELECT ? < ? AS inside", args: ["ac", to] });
    assert.equal(rs.rows[0].inside, 0);
  });
});
