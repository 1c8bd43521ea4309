// The operators' service: each change writes its audit entry with it (sign-in with its session, setup with the
// first admin, sign-out with the session's end, admin changes with the change), a change that does not happen
// writes none, and with the TOTP key set the entries still reach the log.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { createOperatorService, SESSION_COOKIE } from "../../../cloud/operators/mod.ts";
import { CLI_ACTOR } from "../../../cloud/audit/mod.ts";
import { TEST_PASSWORD_COST } from "../../fixtures/test_cloud.ts";

const PASSWORD = "correct horse battery staple";
const LIMITS = { idleMs: 60_000, maxMs: 3_600_000 };
const KEY = btoa(String.fromCharCode(...new Uint8Array(32).map((_, i) => i * 5 + 1)));
const NOW = Date.parse("2026-01-02T03:04:05.000Z");

async function actions(storage: CloudRepositories): Promise<string[]> {
  const page = await storage.audit.listAudit({ limit: 100, offset: 0 });
  return page.entries.map((e) => `${e.actor} ${e.action}`).sort();
}

function withSession(token: string): Request {
  return new Request("http://localhost/dashboard/projects", { headers: { cookie: `${SESSION_COOKIE}=${token}` } });
}

describe("the operators' service", () => {
  for (const keyed of [false, true]) {
    test(`admin create, password and remove each write their audit entry${keyed ? " (TOTP key set)" : ""}`, async () => {
      const client = createClient({ url: ":memory:" });
      const storage = await openCloudStorage(client, keyed ? { secretKey: KEY } : {});
      try {
        const operators = createOperatorService(storage, { passwordCost: TEST_PASSWORD_COST });
        const created = await operators.create("ops@example.com", "viewer", PASSWORD, CLI_ACTOR);
        assert.ok(created);
        assert.equal(await operators.create("OPS@example.com", "admin", PASSWORD, CLI_ACTOR), null, "email taken");
        assert.equal(await operators.setPassword(created, `${PASSWORD}!`, CLI_ACTOR), true);
        assert.equal(await operators.remove(created, CLI_ACTOR), true);
        assert.equal(await operators.remove(created, CLI_ACTOR), false, "already removed");
        assert.deepEqual(await actions(storage), [
          "cli operator.create",
          "cli operator.password",
          "cli operator.remove",
        ]);
      } finally {
        await storage.close();
        client.close();
      }
    });
  }

  test("sign-in opens a session with its audit entry; sign-out ends it with its own", async () => {
    const storage = await openCloudStorage(":memory:");
    try {
      const operators = createOperatorService(storage, { passwordCost: TEST_PASSWORD_COST });
      const op = (await operators.create("a@example.com", "admin", PASSWORD, CLI_ACTOR))!;
      const by = { actor: op.email, sourceAddress: "192.0.2.1" };
      const token = await operators.signIn(op, by, NOW, LIMITS);
      assert.equal((await operators.session(withSession(token), NOW + 1000, LIMITS, false))?.operator.id, op.id);
      await operators.signOut(token, by, NOW + 2000);
      assert.equal(await operators.session(withSession(token), NOW + 3000, LIMITS, false), null);
      await operators.signInFailed(null, { actor: "nobody@example.com", sourceAddress: null }, NOW);
      assert.deepEqual(await actions(storage), [
        "a@example.com operator.sign_in",
        "a@example.com operator.sign_out",
        "cli operator.create",
        "nobody@example.com operator.sign_in_failed",
      ]);
      const signIn = (await storage.audit.listAudit({ action: "operator.sign_in", limit: 10, offset: 0 })).entries;
      assert.deepEqual(signIn.map((e) => [e.target, e.sourceAddress]), [[op.id, "192.0.2.1"]]);
    } finally {
      await storage.close();
    }
  });

  test("setup creates the first admin with its audit entry once; a spent link writes neither", async () => {
    const storage = await openCloudStorage(":memory:");
    try {
      const operators = createOperatorService(storage, { passwordCost: TEST_PASSWORD_COST });
      const link = await operators.createSetupLink(NOW);
      assert.ok(link);
      const token = new URL(link, "http://localhost").searchParams.get("token")!;
      assert.equal(await operators.setupLinkValid(token, NOW), true);
      const session = await operators.setUp(token, "first@example.com", PASSWORD, "192.0.2.9", NOW, LIMITS);
      assert.ok(session);
      assert.equal(await operators.setupLinkValid(token, NOW), false);
      assert.equal(await operators.setUp(token, "second@example.com", PASSWORD, null, NOW, LIMITS), null);
      assert.deepEqual((await operators.list()).map((o) => o.email), ["first@example.com"]);
      assert.deepEqual(await actions(storage), ["first@example.com operator.setup"]);
      assert.equal(await operators.createSetupLink(NOW), null, "no link once an operator exists");
    } finally {
      await storage.close();
    }
  });

  test("without the test seam, new passwords are hashed at production's cost (2^15); a cheaper stored hash verifies", async () => {
    const storage = await openCloudStorage(":memory:");
    try {
      const operators = createOperatorService(storage);
      const op = (await operators.create("full@example.com", "admin", PASSWORD, CLI_ACTOR))!;
      assert.match(op.passwordHash, /^scrypt\$15\$8\$1\$/);
      const cheap = createOperatorService(storage, { passwordCost: TEST_PASSWORD_COST });
      const tested = (await cheap.create("cheap@example.com", "admin", PASSWORD, CLI_ACTOR))!;
      assert.match(tested.passwordHash, new RegExp(`^scrypt\\$${TEST_PASSWORD_COST}\\$8\\$1\\$`));
      assert.equal(await operators.checkPassword(tested, PASSWORD), true, "the cost is read from the stored hash");
      assert.equal(await operators.checkPassword(tested, `${PASSWORD}!`), false);
      assert.equal(await cheap.checkPassword(null, PASSWORD), false, "an unknown operator: the decoy, never true");
    } finally {
      await storage.close();
    }
  });
});
