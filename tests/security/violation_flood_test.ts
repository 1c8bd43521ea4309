// Issue 13, finding 2: an agent cannot flood the violation tables. Repeated
// refusals of one key are recorded once per key and window, with the count of
// the repeats in metadata; the cloud's verify route coalesces the same way;
// the cloud keeps violations for a configurable time (30 days by default).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRefusalCoalescer } from "../../core/abuse/mod.ts";
import { DEFAULT_VIOLATION_RETENTION_MS } from "../../cloud/create_cloud.ts";
import { openAppStorage } from "../../core/app/storage/mod.ts";
import { newViolation, type Violation } from "../../core/contract/mod.ts";
import { mint, notesSvc, run } from "../fixtures/notes_svc.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { keepPolicy } from "../fixtures/kept_policy.ts";
import { startTestCloud } from "../fixtures/test_cloud.ts";
import { waitFor } from "../fixtures/wait_for.ts";

const FLOOD = 2000;
/** Longer than any run: the counts of repeats are stored when the test asks, not every second. */
const HOUR = 60 * 60 * 1000;

async function revoke(svc: ReturnType<typeof notesSvc>, user: string, id: string): Promise<void> {
  const res = await svc.handle(
    new Request(`http://app.test/svc/keys/${id}`, { method: "DELETE", headers: { "x-user": user } }),
  );
  assert.equal(res.status, 200);
}

/** A hybrid app on a file whose cloud cannot be reached, so everything it reports waits in its outbox. */
async function cutOffHybridApp(
  now?: () => number,
): Promise<{ svc: ReturnType<typeof notesSvc>; close(): Promise<void> }> {
  const t = await startTestCloud();
  const dir = tempDir("svc-flood-");
  await keepPolicy(`file:${dir.file("app.db")}`); // read on an earlier run: it mints while cut off
  const svc = notesSvc(
    {
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: { endpoint: "http://127.0.0.1:1", projectId: t.project.id, sdkSecret: t.project.secret, retryMinMs: 5 },
      // Violations alone: each run's activity record is one outbox item by design (written in groups, bounded).
      activity: false,
    },
    now,
    { repeatsStoredWithinMs: HOUR },
  );
  return {
    svc,
    async close() {
      await svc.close();
      await t.close();
      dir.remove();
    },
  };
}

describe("the refusal coalescer", () => {
  test("lets the first refusal of a window through and counts the rest", () => {
    const c = createRefusalCoalescer<string>({ windowMs: 1000 });
    assert.equal(c.note("k", "first", 0), true);
    for (let i = 1; i < 100; i++) assert.equal(c.note("k", "again", i), false);
    assert.equal(c.note("other", "first", 50), true);
    assert.deepEqual(c.closed(500), [], "no window has closed yet");
    assert.equal(c.note("k", "next window", 1000), true, "a new window records again");
    assert.deepEqual(c.closed(1000), [{ item: "first", repeats: 99, since: 0 }]);
    assert.deepEqual(c.closed(1000, true), [], "nothing repeated in the open windows");
  });

  test("keeps at most maxEntries windows, summarising the ones it drops", () => {
    const c = createRefusalCoalescer<number>({ windowMs: 1_000_000, maxEntries: 10 });
    for (let i = 0; i < 100; i++) {
      c.note(`k${i}`, i, i);
      c.note(`k${i}`, i, i);
    }
    assert.ok(c.size <= 10);
    assert.equal(c.closed(100).length, 90, "the dropped windows are summarised, not lost");
  });
});

describe("a revoked key used over and over", () => {
  test("in local mode writes one violation and one count per window, not one per request", async () => {
    const svc = notesSvc({}, undefined, { repeatsStoredWithinMs: HOUR }); // counts stored at the end, however slow
    try {
      const { id, key } = await mint(svc, "alice", ["notes:read"]);
      await revoke(svc, "alice", id);
      for (let i = 0; i < FLOOD; i++) assert.equal((await run(svc, key, "notes.list")).status, 401);
      const rows = await svc.violations({ keyId: id, limit: 200 });
      assert.ok(rows.length <= 2, `${rows.length} rows for ${FLOOD} requests`);
      assert.ok(rows.every((r) => r.kind === "REVOKED_KEY"));
      const counted = rows.reduce((n, r) => n + Number(r.metadata.repeats ?? 1), 0);
      assert.equal(counted, FLOOD, "the metadata counts every refusal");
    } finally {
      await svc.close();
    }
  });

  test("in hybrid mode leaves a bounded outbox and the next revocation is not delayed", async () => {
    const { svc, close } = await cutOffHybridApp();
    try {
      const { id, key } = await mint(svc, "alice", ["notes:read"]);
      await revoke(svc, "alice", id);
      for (let i = 0; i < FLOOD; i++) await run(svc, key, "notes.list");
      await svc.violations();
      const waiting = await svc.sync(); // the cloud is unreachable: everything waits
      assert.ok(waiting <= 5, `${waiting} items wait for the cloud after ${FLOOD} refused requests`);
    } finally {
      await close();
    }
  });

  test("at the cloud's verify route writes one violation and one count per window", async () => {
    const t = await startTestCloud({ repeatsWrittenWithinMs: HOUR }); // counts written at close, however slow
    try {
      const { key, id } = await t.mintKey("alice");
      assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${id}`)).status, 200);
      for (let i = 0; i < 500; i++) {
        const res = await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key } });
        assert.deepEqual(res.body, { valid: false });
      }
      await t.cloud.close(); // writes the counts of open windows
      const page = await t.storage.violations.listViolations(t.project.id, { keyId: id, limit: 200, offset: 0 });
      assert.ok(page.total <= 2, `${page.total} rows for 500 verifications`);
      const counted = page.violations.reduce((n, r) => n + Number(r.metadata.repeats ?? 1), 0);
      assert.equal(counted, 500);
    } finally {
      await t.close();
    }
  });
});

describe("repeats counted in memory at the cloud's verify route", () => {
  test("reach storage within a second, before their window closes", async () => {
    const t = await startTestCloud();
    try {
      const { key, id } = await t.mintKey("alice");
      assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${id}`)).status, 200);
      for (let i = 0; i < 50; i++) {
        assert.deepEqual((await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key } })).body, { valid: false });
      }
      const counted = async () => {
        const page = await t.storage.violations.listViolations(t.project.id, { keyId: id, limit: 200, offset: 0 });
        return page.violations.reduce((n, r) => n + Number(r.metadata.repeats ?? 1), 0);
      };
      await waitFor("the 50 refusals to be stored", async () => await counted() === 50);
    } finally {
      await t.close();
    }
  });
});

describe("a valid key that names a fresh unknown intent on every request", () => {
  test("writes a handful of rows and outbox items, not one per request, with the count and a few of the names", async () => {
    const frozen = Date.now(); // no token comes back while the test runs, however slow the machine
    const { svc, close } = await cutOffHybridApp(() => frozen);
    try {
      const { id, key } = await mint(svc, "alice", ["notes:read"]);
      const statuses = new Map<number, number>();
      for (let i = 0; i < 1000; i++) {
        const status = (await run(svc, key, `unknown.${i}.${"x".repeat(150)}`)).status;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      assert.deepEqual([...statuses], [[404, 600], [429, 400]], "refused up to the default rate, then limited");
      const rows = await svc.violations({ keyId: id, limit: 200 });
      const waiting = await svc.sync(); // the cloud is unreachable: everything waits, the key's mirror first
      assert.ok(rows.length <= 3, `${rows.length} rows for 1000 distinct unknown intents`);
      assert.ok(waiting <= 4, `${waiting} outbox items (one a key mirror) for 1000 distinct unknown intents`);
      const unknown = rows.filter((r) => r.kind === "UNKNOWN_INTENT");
      assert.equal(unknown.reduce((n, r) => n + Number(r.metadata.repeats ?? 1), 0), 600, "every refusal counted");
      assert.ok(unknown.some((r) => r.intent?.startsWith("unknown.0.")), "the first intent is kept");
      const named = unknown.flatMap((r) => (r.metadata.intents as string[] | undefined) ?? []);
      assert.ok(named.length >= 2 && named.length <= 5, `${named.length} intents named`);
      assert.ok(named.every((n) => n.length <= 100), "each name cut short");
    } finally {
      await close();
    }
  });
});

describe("violation retention at the cloud", () => {
  test("is 30 days by default", () => {
    assert.equal(DEFAULT_VIOLATION_RETENTION_MS, 30 * 24 * 60 * 60 * 1000);
  });

  test("purges violations older than the configured retention, and keeps the rest", async () => {
    const t = await startTestCloud({ violationRetentionMs: 24 * 60 * 60 * 1000, purgeIntervalMs: 20 });
    try {
      const old = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000).toISOString();
      const base = { apiKeyId: crypto.randomUUID(), kind: "FORBIDDEN_SCOPE", severity: "warning" };
      assert.equal(
        (await t.sdk("POST", "/v1/sdk/violations", { body: { violation: { ...base, at: old } } })).status,
        200,
      );
      assert.equal((await t.sdk("POST", "/v1/sdk/violations", { body: { violation: base } })).status, 200);
      const total = await waitFor("a purge pass to remove a violation", async () => {
        const left: number = (await t.sdk("GET", "/v1/sdk/violations")).body.total;
        return left < 2 ? left : undefined;
      });
      assert.equal(total, 1, "the old violation was purged, the new one kept");
    } finally {
      await t.close();
    }
  });
});

describe("violation retention in the app", () => {
  const DAY = 24 * 60 * 60 * 1000;
  const madeAt = (daysAgo: number): Violation => ({
    ...newViolation("REVOKED_KEY", { keyId: crypto.randomUUID(), userId: "ann", message: "revoked key used" }),
    createdAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
  });

  /** The app's violations after an app ran on the file once, with `overrides`. */
  async function afterOneRun(file: string, overrides: Parameters<typeof notesSvc>[0]): Promise<string[]> {
    const svc = notesSvc({ storage: `file:${file}`, ...overrides });
    assert.equal((await mint(svc, "bob", [])).agentId, "bob", "requests are served meanwhile");
    await svc.close(); // waits for the purge made at start
    const storage = await openAppStorage(`file:${file}`);
    const left = (await storage.listViolations({ limit: 100 })).map((v) => v.id);
    await storage.close();
    return left;
  }

  test("purges the app's violations older than 30 days at start, and keeps the rest", async () => {
    const dir = tempDir("svc-retention-");
    try {
      const storage = await openAppStorage(`file:${dir.file("app.db")}`);
      const [old, recent] = [madeAt(31), madeAt(29)];
      await storage.insertViolations([old, recent]);
      await storage.close();
      assert.deepEqual(await afterOneRun(dir.file("app.db"), {}), [recent.id]);
      assert.deepEqual(await afterOneRun(dir.file("app.db"), { violationRetentionMs: 28 * DAY }), []);
    } finally {
      dir.remove();
    }
  });
});
