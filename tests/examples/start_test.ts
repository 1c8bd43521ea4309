// @slow: subprocesses
// `npm start` (examples/start.ts) and `npm run agent` (examples/agent.ts) as a
// newcomer runs them: real Deno subprocesses in a fresh folder, real sockets on
// 127.0.0.1. Run from Node only (each test drives Deno itself).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Finished, finished, repoRoot, run, start } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { type FormClient, formClient } from "../cloud/dashboard/form_client.ts";
import { settlesWithin, waitFor } from "../fixtures/wait_for.ts";

const skip = runtime !== "node" && "runs on Node only: it drives Deno as a subprocess";
const deno = join(repoRoot, "node_modules", ".bin", "deno");
const config = ["--config", join(repoRoot, "deno.json")];
const dir = tempDir("svc-start-");
after(() => dir.remove());

interface Started {
  child: ChildProcess;
  done: Promise<Finished>;
  stdout: () => string;
  app: string;
  cloud: string;
}

/** Starts examples/start.ts (in the shared folder, or `cwd`) and resolves once its walk-through is printed. */
function npmStart(env: Record<string, string>, cwd = dir.path): Promise<Started> {
  const child = start([deno, "run", "-A", ...config, join(repoRoot, "examples", "start.ts")], cwd, env);
  const done = finished(child);
  let seen = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      seen += chunk;
      const app = /^App +(http:\S+)/m.exec(seen)?.[1];
      const cloud = /^Cloud +(http:\S+)/m.exec(seen)?.[1];
      const printed = /\n7\. [\s\S]*\n\n$/.test(seen); // the walk-through's last step and its end
      if (app && cloud && printed) resolve({ child, done, stdout: () => seen, app, cloud });
    });
    done.then((f) => reject(new Error(`npm start exited early (${f.code}): ${f.stderr}`)));
  });
}

/** Signs in as alice, mints a key, and waits until the hybrid mirror has brought it to the cloud. */
async function mintKey(started: Started): Promise<string> {
  return (await mintKeyRecord(started)).key;
}

async function mintKeyRecord(started: Started): Promise<{ key: string; id: string }> {
  const minted = await fetch(`${started.app}/svc/keys`, {
    method: "POST",
    headers: { cookie: "session=alice", "content-type": "application/json" },
    body: JSON.stringify({ name: "agent", scopes: ["notes:read", "notes:write"] }),
  });
  assert.equal(minted.status, 201);
  const { key, id } = await minted.json();
  await waitFor("the key to reach the cloud", async () => {
    const res = await fetch(`${started.cloud}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });
    await res.body?.cancel();
    return res.status === 200;
  });
  return { key, id };
}

/** Creates the first admin through the setup link npm start printed, and returns the signed-in browser. */
async function firstAdmin(started: Started): Promise<FormClient> {
  const setup = /first run: open \S+?(\/dashboard\/setup\?token=\S+) within 1 hour/.exec(started.stdout())?.[1];
  assert.ok(setup, started.stdout());
  const browser = formClient((req) => fetch(req, { redirect: "manual" }), started.cloud);
  assert.equal((await browser.get(setup)).status, 200);
  const created = await browser.post(setup, { email: "me@example.com", password: "a long enough password" });
  assert.equal(created.status, 303, created.text);
  return browser;
}

async function stop(started: Started): Promise<Finished> {
  started.child.kill("SIGINT");
  return await started.done;
}

test("npm start serves on APP_PORT and CLOUD_PORT and carries both into every line of the walk-through", {
  skip,
}, async () => {
  const started = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" });
  try {
    assert.doesNotMatch(started.app, /:8000$/);
    assert.doesNotMatch(started.cloud, /:8787$/);
    const out = started.stdout();
    assert.ok(out.includes(`APP_URL=${started.app} CLOUD_URL=${started.cloud} npm run agent -- --once`), out);
    assert.ok(out.includes(`curl -s -X POST ${started.app}/svc/keys`));
    assert.ok(out.includes(`curl -s "${started.cloud}/v1/agent/inbox?cursor=0"`));
    assert.doesNotMatch(out, /0\.0\.0\.0|:8000|:8787/);
  } finally {
    await stop(started);
  }
});

test("npm start prints the dashboard and its setup link; its last links show the violation and the event", {
  skip,
}, async () => {
  const fresh = tempDir("svc-start-fresh-");
  const started = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" }, fresh.path);
  try {
    const out = started.stdout();
    const c = started.cloud.replace(/[.]/g, "\\.");
    const setup = new RegExp(
      `^Dashboard ${c}/dashboard +first run: open ${c}(/dashboard/setup\\?token=\\S+) within 1 hour`,
      "m",
    )
      .exec(out)?.[1];
    assert.ok(setup, out);
    const links = new RegExp(
      `^7\\. .*dashboard.*\\n +echo "${c}(/dashboard/projects/prj_\\w+/violations\\?key=)\\$KEY_ID"\\n +echo "${c}(\\S+/inbox/alice\\?status=acknowledged)"$`,
      "m",
    ).exec(out);
    assert.ok(links, out);
    // Steps 1 to 6 as a newcomer pastes them: a key, a refused intent, a note that tells the agent, its ack.
    const { key, id } = await mintKeyRecord(started);
    const agent = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const refused = await fetch(`${started.app}/svc/agent/run`, {
      method: "POST",
      headers: agent,
      body: JSON.stringify({ intent: "notes.delete", payload: { id: "00000000-0000-4000-8000-000000000000" } }),
    });
    assert.equal(refused.status, 403);
    const note = await fetch(`${started.app}/notes`, {
      method: "POST",
      headers: { cookie: "session=alice", "content-type": "application/json" },
      body: JSON.stringify({ title: "Call Bob" }),
    });
    assert.equal(note.status, 201);
    const { items } = await (await fetch(`${started.cloud}/v1/agent/inbox?cursor=0`, { headers: agent })).json();
    const ack = await fetch(`${started.cloud}/v1/agent/ack`, {
      method: "POST",
      headers: agent,
      body: JSON.stringify({ inboxIds: items.map((i: { inboxId: number }) => i.inboxId) }),
    });
    assert.equal(ack.status, 200);
    // Step 7: the setup link creates the admin, and the two links show the violation and the event.
    const browser = await firstAdmin(started);
    const violations = await waitFor("the app to report the violation (it does so in the background)", async () => {
      const page = (await browser.get(`${links[1]}${id}`)).text;
      return page.includes("FORBIDDEN_SCOPE") && page;
    });
    assert.match(violations, /<strong>1<\/strong> violations match/);
    assert.match(violations, /FORBIDDEN_SCOPE[\s\S]*notes\.delete/);
    const inbox = await browser.get(links[2]);
    assert.equal(inbox.status, 200);
    assert.match(inbox.text, /<strong>1<\/strong> acknowledged items in <code>alice<\/code>/);
    assert.match(inbox.text, /note\.created[\s\S]*Call Bob/);
  } finally {
    await stop(started);
    fresh.remove();
  }
});

test("npm start's step 9 walks an approval from the agent's request to its result", { skip }, async () => {
  // A folder of its own: the decision puts approval.decided in alice's inbox, which the agent test counts.
  const fresh = tempDir("svc-start-approval-");
  const started = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" }, fresh.path);
  try {
    const out = started.stdout();
    assert.ok(out.includes(`-d '{"intent":"notes.delete_all","payload":{"confirm":true}}'`), out);
    assert.ok(out.includes(`curl -s -X POST ${started.app}/svc/approvals/$APR/approve -b session=alice`), out);
    const key = await mintKey(started);
    const agent = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const asked = await fetch(`${started.app}/svc/agent/run`, {
      method: "POST",
      headers: agent,
      body: JSON.stringify({ intent: "notes.delete_all", payload: { confirm: true } }),
    });
    assert.equal(asked.status, 202);
    const { approvalId, decideUrl } = await asked.json();
    assert.equal(decideUrl, `${started.app}/svc/approvals/${approvalId}`);
    const pending = await (await fetch(`${started.app}/svc/approvals?status=pending`, {
      headers: { cookie: "session=alice" },
    })).json();
    assert.ok(pending.approvals.some((a: { approvalId: string }) => a.approvalId === approvalId));
    const approved = await fetch(`${started.app}/svc/approvals/${approvalId}/approve`, {
      method: "POST",
      headers: { cookie: "session=alice" },
    });
    assert.equal(approved.status, 200);
    const outcome = await (await fetch(`${started.app}/svc/agent/approvals/${approvalId}?wait=20`, {
      headers: agent,
    })).json();
    assert.equal(outcome.status, "approved");
    assert.equal(typeof outcome.result.deleted, "number");
  } finally {
    await stop(started);
    fresh.remove();
  }
});

test("npm run agent -- --once handles every waiting event, acknowledges them, and exits", { skip }, async () => {
  const started = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" });
  try {
    const key = await mintKey(started);
    for (const title of ["one", "two", "three"]) {
      const res = await fetch(`${started.app}/notes`, {
        method: "POST",
        headers: { cookie: "session=alice", "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      assert.equal(res.status, 201);
    }
    const agent = await run(
      [deno, "run", "-A", ...config, join(repoRoot, "examples", "agent.ts"), "--once"],
      dir.path,
      {
        SVC_KEY: key,
        APP_URL: started.app,
        CLOUD_URL: started.cloud,
      },
    );
    assert.equal(agent.code, 0, agent.stderr);
    assert.match(agent.stdout, /handled and acknowledged 3 event\(s\)/);
    const inbox = await fetch(`${started.cloud}/v1/agent/inbox?cursor=0`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.deepEqual((await inbox.json()).items, []);
  } finally {
    await stop(started);
  }
});

test("Ctrl-C stops npm start while an agent long-polls, answering the poll instead of waiting it out", {
  skip,
}, async () => {
  const started = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" });
  const key = await mintKey(started);
  const operator = await firstAdmin(started);
  const project = /\/dashboard\/projects\/(prj_\w+)\//.exec(started.stdout())![1];
  const poll = fetch(`${started.cloud}/v1/agent/inbox?cursor=999999&wait=20`, {
    headers: { authorization: `Bearer ${key}` },
  });
  // The dashboard's inbox page counts the inbox's long polls waiting on this server.
  await waitFor("the poll to be held", async () => {
    const page = await operator.get(`/dashboard/projects/${project}/inbox/alice`);
    return /<strong>1<\/strong> long poll of this inbox waiting on this server/.test(page.text);
  });
  // The poll waits 20 s; stopping must not: a 10 s bound separates the two with room to spare on a busy machine.
  const [answer, exit] = await settlesWithin(Promise.all([poll, stop(started)]), 10_000, "npm start's stop");
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), { items: [], nextCursor: 999999 });
  assert.equal(exit.code, 0, exit.stderr);
  assert.match(exit.stdout, /stopped/);
  // The app stops before the cloud, so its revocation feed and outbox have nothing to complain about.
  assert.doesNotMatch(exit.stderr, /cannot be reached|retrying/);
});

test("a second npm start on a port in use says so in one line and exits 1", { skip }, async () => {
  const first = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" });
  try {
    const port = new URL(first.cloud).port;
    const second = await run([deno, "run", "-A", ...config, join(repoRoot, "examples", "start.ts")], dir.path, {
      APP_PORT: "0",
      CLOUD_PORT: port,
    });
    assert.equal(second.code, 1);
    assert.equal(
      second.stderr,
      `npm start: Port ${port} on 127.0.0.1 is already in use: stop the other server or choose another port ` +
        "(for example CLOUD_PORT=0 npm start).\n",
    );
  } finally {
    await stop(first);
  }
});

test("the demo project's secret is kept in a file only its owner can read, never printed", { skip }, async () => {
  const started = await npmStart({ APP_PORT: "0", CLOUD_PORT: "0" });
  const { sdkSecret } = JSON.parse(readFileSync(dir.file("data/demo-project.json"), "utf8"));
  const exit = await stop(started);
  assert.match(sdkSecret, /^svcs_/);
  assert.equal(statSync(dir.file("data/demo-project.json")).mode & 0o077, 0, "no access for group or others");
  assert.equal(exit.stdout.includes(sdkSecret), false);
});
