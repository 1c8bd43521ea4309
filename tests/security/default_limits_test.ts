// @slow: subprocesses
// Issue 13, findings 9 and 10: protection without configuration. Rate limits
// are on by default on both sides (the numbers are exported and documented);
// an agent key's requests to the cloud are limited per key, apart from its
// project's SDK writes; `serve` listens on 127.0.0.1 unless told otherwise and
// takes --rate-limit flags.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_CLOUD_RATE_LIMITS } from "../../cloud/create_cloud.ts";
import { DEFAULT_SVC_RATE_LIMITS } from "../../core/app/mod.ts";
import { event, startTestCloud } from "../fixtures/test_cloud.ts";
import { mint, notesSvc, run } from "../fixtures/notes_svc.ts";
import { cliCommand, finished, start } from "../fixtures/subprocess.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

/**
 * Calls until the first 429 and returns how many calls passed before it. The
 * bucket refills while the loop runs, so a few more than `limit` may pass; a
 * refusal must come within twice the limit.
 */
async function allowedBeforeRefusal(call: () => Promise<{ status: number }>, limit: number): Promise<number> {
  for (let i = 0; i < 2 * limit; i++) {
    const { status } = await call();
    if (status === 429) return i;
    assert.equal(status, 200);
  }
  throw new Error(`no 429 within ${2 * limit} calls`);
}

describe("default rate limits", () => {
  test("an agent key gets 429 on /svc/agent/run past the default, with nothing configured", async () => {
    const svc = notesSvc();
    try {
      const { key } = await mint(svc, "alice", ["notes:read"]);
      const { limit } = DEFAULT_SVC_RATE_LIMITS.perKey;
      assert.ok(await allowedBeforeRefusal(() => run(svc, key, "notes.list"), limit) >= limit);
    } finally {
      await svc.close();
    }
  });

  test("rateLimit: false turns the app's limit off", async () => {
    const svc = notesSvc({ rateLimit: false });
    try {
      const { key } = await mint(svc, "alice", ["notes:read"]);
      for (let i = 0; i < 2 * DEFAULT_SVC_RATE_LIMITS.perKey.limit; i++) {
        assert.equal((await run(svc, key, "notes.list")).status, 200);
      }
    } finally {
      await svc.close();
    }
  });

  test("an agent key gets 429 at the cloud's agent routes past the default", async () => {
    const t = await startTestCloud({ rateLimit: undefined });
    try {
      const { key } = await t.mintKey("alice");
      const { limit } = DEFAULT_CLOUD_RATE_LIMITS.perAgentKey;
      const ack = () => t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [1] } });
      assert.ok(await allowedBeforeRefusal(ack, limit) >= limit);
      // The bucket refills (limit per minute) while this runs, so a poll may get a refilled token; but with a
      // budget of its own the inbox would answer `limit` polls before any 429, not a few.
      let polls = 0;
      let refused = await t.agent(key, "GET", "/v1/agent/inbox");
      while (refused.status === 200 && polls < limit) {
        polls++;
        refused = await t.agent(key, "GET", "/v1/agent/inbox");
      }
      assert.equal(refused.status, 429, "the inbox shares the key's budget");
      assert.ok(polls < limit / 2, `the inbox shares the key's budget (${polls} polls answered before a 429)`);
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    } finally {
      await t.close();
    }
  });
});

describe("agent routes of the cloud are limited per key", () => {
  test("a key spamming /v1/agent/ack spends its own budget, not its project's writes", async () => {
    const t = await startTestCloud({
      rateLimit: { perProject: { limit: 40, windowMs: 60_000 }, perAgentKey: { limit: 10, windowMs: 60_000 } },
    });
    try {
      const { key } = await t.mintKey("alice"); // one project write
      const other = await t.mintKey("bob");
      let refusedAcks = 0;
      let emitted = 0;
      for (let i = 0; i < 39; i++) {
        const ack = await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [1] } });
        if (ack.status === 429) refusedAcks++;
        const res = await t.sdk("POST", "/v1/events", { body: event(`e${i}`, "alice") });
        if (res.status === 202) emitted++;
      }
      assert.equal(emitted, 38, "every emit within the project's budget went through");
      assert.equal(refusedAcks, 29, "the spamming key was held to its own limit");
      const fresh = await t.agent(other.key, "POST", "/v1/agent/ack", { body: { inboxIds: [1] } });
      assert.equal(fresh.status, 200, "another key of the project is not limited by the first");
    } finally {
      await t.close();
    }
  });
});

describe("svc-cloud serve", () => {
  /** Starts serve with the given flags and resolves with the address it prints. */
  function serveWith(flags: string[], cwd: string) {
    const db = flags.includes("--db") ? [] : ["--db", ":memory:"];
    const child = start([...cliCommand(), "serve", "--port", "0", ...db, ...flags], cwd);
    const done = finished(child);
    const url = new Promise<string>((resolve, reject) => {
      let seen = "";
      child.stdout!.on("data", (d) => {
        seen += d;
        const m = /listening on (http:\/\/[^/\s]+)\/v1/.exec(seen);
        if (m) resolve(m[1]);
      });
      done.then((f) => reject(new Error(`serve exited early (${f.code}): ${f.stderr}`)));
    });
    return { child, done, url };
  }

  test("listens on 127.0.0.1 unless --host is given", async () => {
    const dir = tempDir();
    const s = serveWith([], dir.path);
    try {
      const url = await s.url;
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal((await fetch(`${url}/v1/openapi.json`)).status, 200);
    } finally {
      s.child.kill("SIGTERM");
      await s.done;
      dir.remove();
    }
  });

  test("--rate-limit-agent sets the per-key limit of agent routes, and a bad value is a usage error", async () => {
    const dir = tempDir();
    const db = `file:${dir.file("svc.db")}`;
    const created = await finished(
      start([...cliCommand(), "project", "create", "--name", "p", "--json", "--db", db], dir.path),
    );
    const { projectId, sdkSecret } = JSON.parse(created.stdout);
    const s = serveWith(["--db", db, "--rate-limit-agent", "2", "--rate-limit-project", "0"], dir.path);
    try {
      const url = await s.url;
      const minted = await fetch(`${url}/v1/sdk/keys`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${sdkSecret}`,
          "x-svc-project": projectId,
          "content-type": "application/json",
        },
        body: JSON.stringify({ userId: "alice", name: "k", scopes: [] }),
      });
      const { key } = await minted.json();
      const poll = () => fetch(`${url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal((await poll()).status, 200);
      assert.equal((await poll()).status, 200);
      assert.equal((await poll()).status, 429);
    } finally {
      s.child.kill("SIGTERM");
      await s.done;
    }
    const bad = serveWith(["--db", db, "--rate-limit-agent", "lots"], dir.path);
    const exit = await bad.done;
    await bad.url.catch(() => {});
    assert.equal(exit.code, 2);
    assert.match(exit.stderr, /--rate-limit-agent/);
    dir.remove();
  });

  test("--rate-limit-refusals limits refused credentials per client address of serve, and 0 turns it off", async () => {
    const dir = tempDir();
    const db = `file:${dir.file("svc.db")}`;
    const refused = (url: string) =>
      fetch(`${url}/v1/agent/inbox`, { headers: { authorization: "Bearer svc_live_unknown" } }).then((r) => r.status);
    for (const [flag, third] of [["2", 429], ["0", 401]] as const) {
      const s = serveWith(["--db", db, "--rate-limit-refusals", flag], dir.path);
      try {
        const url = await s.url;
        assert.deepEqual([await refused(url), await refused(url), await refused(url)], [401, 401, third], flag);
      } finally {
        s.child.kill("SIGTERM");
        await s.done;
      }
    }
    dir.remove();
  });
});
