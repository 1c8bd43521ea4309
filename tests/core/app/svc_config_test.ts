// Issue 25, item 6 (and issue 21, item 4): a configuration mistake fails at createSvc, synchronously,
// with a message that names the option and says what to write instead; it never starts and fails later.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createSvc, type SvcConfig } from "../../../mod.ts";
import { createSvcWith } from "../../../core/app/mod.ts";
import { mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

const cloud = { endpoint: "http://127.0.0.1:1", projectId: "prj_01JABCDEFGHJKMNPQRSTVWXYZ0", sdkSecret: "svcs_x" };
const base = { userResolver: () => null, scopes: [] as string[] };

/** createSvc with a configuration the types would refuse, as a JavaScript app or a loose cast would pass it. */
function createLoosely(config: Record<string, unknown>): unknown {
  return createSvc(config as unknown as SvcConfig);
}

/** Asserts that `config` throws at once, with every `parts` in the message. */
function assertRefused(config: Record<string, unknown>, ...parts: string[]): void {
  assert.throws(() => createLoosely(config), (error: Error) => {
    for (const part of parts) assert.ok(error.message.includes(part), `"${part}" in: ${error.message}`);
    assert.match(error.message, /^createSvc: /);
    return true;
  });
}

describe("createSvc refuses a configuration mistake at once, naming the option and the fix", () => {
  test("a missing userResolver (which used to answer 500 on every /svc/keys)", () => {
    assertRefused({ scopes: [] }, "`userResolver` is required", "(req) => userId | null", "session");
    assertRefused({ scopes: [], userResolver: "x-user" }, "`userResolver`", "(req) => userId | null");
  });

  test("missing scopes", () => {
    assertRefused({ userResolver: () => null }, "`scopes`", '["notes:read"');
  });

  test("a hybrid or cloud-mode app without cloud.projectId (which used to log 'project undefined')", () => {
    for (const mode of ["hybrid", "cloud"]) {
      const storage = "file:./never-opened.db";
      const { projectId: _, ...noProject } = cloud;
      assertRefused(
        { ...base, mode, storage, cloud: noProject },
        `"${mode}"`,
        "cloud.projectId",
        "prj_",
        "SVC_PROJECT_ID",
      );
      const { sdkSecret: __, ...noSecret } = cloud;
      assertRefused({ ...base, mode, storage, cloud: noSecret }, "cloud.sdkSecret", "svcs_", "SVC_SDK_SECRET");
      assertRefused(
        { ...base, mode, storage, cloud: { ...cloud, projectId: "my-project" } },
        "cloud.projectId",
        "prj_",
      );
      assertRefused({ ...base, mode, storage, cloud: { ...cloud, endpoint: "svc.example.com" } }, "cloud.endpoint");
      assertRefused({ ...base, mode, storage }, `"${mode}"`, "cloud: { endpoint, projectId, sdkSecret }");
    }
  });

  test("cloud.maxRevocationLagMs, cloud.label and a cloud.sdkSecret that is neither a secret nor a function", () => {
    const storage = "file:./never-opened.db";
    for (const maxRevocationLagMs of [0, -1, "600000", true]) {
      assertRefused(
        { ...base, mode: "hybrid", storage, cloud: { ...cloud, maxRevocationLagMs } },
        "cloud.maxRevocationLagMs",
      );
    }
    assertRefused({ ...base, mode: "hybrid", storage, cloud: { ...cloud, label: "x".repeat(101) } }, "cloud.label");
    assertRefused({ ...base, mode: "cloud", cloud: { ...cloud, sdkSecret: 42 } }, "cloud.sdkSecret", "a function");
  });

  test("cloud.requireAtStart that is not a boolean", () => {
    const storage = "file:./never-opened.db";
    for (const requireAtStart of ["yes", 1]) {
      assertRefused(
        { ...base, mode: "hybrid", storage, cloud: { ...cloud, requireAtStart } },
        "cloud.requireAtStart must be true or false",
      );
    }
  });

  test("accepts sdkSecret as a function and maxRevocationLagMs false", async () => {
    const svc = createSvc({
      ...base,
      mode: "cloud",
      cloud: { ...cloud, sdkSecret: () => "svcs_x", maxRevocationLagMs: false },
    });
    await svc.close();
  });

  test("a storage path without file: (which used to fail later with URL_INVALID)", () => {
    assertRefused({ ...base, storage: "./data/app.db" }, '"./data/app.db"', "libSQL URL", 'write "file:./data/app.db"');
    assertRefused({ ...base, storage: "/var/lib/app.db" }, 'write "file:/var/lib/app.db"');
    assertRefused({ ...base, storage: "" }, "`storage`");
  });

  test("an unknown mode, naming the three", () => {
    assertRefused({ ...base, mode: "remote" }, "`mode`", '"local"', '"hybrid"', '"cloud"');
  });

  test("cloud settings without a mode that uses them (the app would run local and never reach the cloud)", () => {
    assertRefused({ ...base, cloud }, "`cloud` is set", 'mode: "hybrid"');
  });

  test("autoRevoke in cloud mode, pointing at the project's policy", () => {
    assertRefused(
      { ...base, mode: "cloud", cloud, autoRevoke: { threshold: 3, windowMinutes: 10 } },
      "PUT /v1/sdk/policy",
    );
  });

  test("a rate limit that is not a rate, naming its path", () => {
    assertRefused({ ...base, rateLimit: { perKey: { limit: 0, windowMs: 1000 } } }, "rateLimit.perKey.limit");
    assertRefused({ ...base, rateLimit: { perKey: 5 } }, "rateLimit.perKey", "{ limit, windowMs }");
  });

  test("several mistakes are listed together, one line each", () => {
    assert.throws(() => createLoosely({ storage: "app.db" }), (error: Error) => {
      assert.match(error.message, /userResolver/);
      assert.match(error.message, /scopes/);
      assert.match(error.message, /file:app\.db/);
      return true;
    });
  });
});

describe("createSvc accepts the contract's configurations", () => {
  test("a missing mode is local, on the default in-memory storage", async () => {
    const svc = createSvc(base);
    try {
      await svc.ready;
      assert.equal((await svc.health()).mode, "local");
    } finally {
      await svc.close();
    }
  });

  test("every libSQL URL form is taken as it is", async () => {
    const dir = tempDir("svc-config-");
    try {
      for (const storage of [":memory:", "file::memory:", `file:${dir.file("app.db")}`, "http://127.0.0.1:1"]) {
        const svc = createSvc({ ...base, storage, logger: () => {} });
        await svc.ready.catch(() => {}); // nothing listens on port 1: refused when opened, not when configured
        await svc.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe("createSvcWith: the test seams, outside the public configuration", () => {
  test("its clock reaches the retention: a violation past the retention by that clock is purged at start", async () => {
    const dir = tempDir("svc-config-");
    const storage = `file:${dir.file("app.db")}`;
    const day = 86_400_000;
    try {
      const first = notesSvc({ storage });
      const { key } = await mint(first, "alice", ["notes:read"]);
      assert.equal((await run(first, key, "notes.create", { title: "x" })).status, 403);
      assert.equal((await first.violations()).length, 1, "one FORBIDDEN_SCOPE recorded");
      await first.close();
      for (const [now, left] of [[Date.now, 1], [() => Date.now() + 2 * day, 0]] as const) {
        const svc = createSvcWith({ ...base, storage, violationRetentionMs: day }, { now });
        await svc.ready;
        await svc.close(); // waits for the purge that starts with the app
        const reopened = notesSvc({ storage });
        try {
          assert.equal((await reopened.violations()).length, left);
        } finally {
          await reopened.close();
        }
      }
    } finally {
      dir.remove();
    }
  });
});
