// Secrets never leak: a hybrid app and its cloud run a whole story (mint, run,
// refusals, a failing handler, a secret sent where it does not belong,
// revocation, events, polls, acknowledgements, reports, a rotation) with every
// log line captured. No agent key or sdkSecret plaintext may appear in a log,
// in any response but the one that minted it, or in either database file.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createCloud } from "../../cloud/mod.ts";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";
import { createProject, rotateSdkSecret } from "../../cloud/projects/projects.ts";
import type { RunningServer } from "../../core/http/mod.ts";
import type { Svc } from "../../mod.ts";
import { notesSvc, SCOPES } from "../fixtures/notes_svc.ts";
import { listen } from "../fixtures/servers.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const dir = tempDir("svc-leak-");
const logs: string[] = [];
const responses: { what: string; text: string }[] = [];
const consoleMethods = ["log", "error", "warn", "info", "debug"] as const;
const originals = consoleMethods.map((m) => console[m]);
const capture = (...args: unknown[]) => logs.push(args.map(show).join(" "));
const logger = (message: string, cause: unknown) => capture(message, cause);

function show(value: unknown): string {
  if (value instanceof Error) return `${value.stack} ${show(value.cause)}`;
  if (typeof value === "object" && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** Wraps a fetch handler so every response body is kept. */
function recorded(name: string, handle: (req: Request) => Promise<Response>) {
  return async (req: Request) => {
    const res = await handle(req);
    responses.push({ what: `${name} ${req.method} ${new URL(req.url).pathname}`, text: await res.clone().text() });
    return res;
  };
}

let cloud: ReturnType<typeof createCloud>;
let cloudServer: RunningServer;
let svc: Svc;
let sdkSecret = "";
let projectId = "";

before(async () => {
  consoleMethods.forEach((m) => console[m] = capture);
  const cloudDb = `file:${dir.file("cloud.db")}`;
  const storage = await openCloudStorage(cloudDb);
  ({ project: { id: projectId }, sdkSecret } = await createProject(storage, "leaks"));
  await storage.close();
  cloud = createCloud({ db: cloudDb, logger });
  cloudServer = await listen(recorded("cloud", cloud.handle));
  svc = notesSvc({
    mode: "hybrid",
    storage: `file:${dir.file("app.db")}`,
    logger,
    cloud: { endpoint: `http://127.0.0.1:${cloudServer.port}`, projectId, sdkSecret, retryMinMs: 20 },
  });
  await svc.ready;
});

after(async () => {
  await svc.close();
  await cloud.close();
  await cloudServer.close();
  consoleMethods.forEach((m, i) => console[m] = originals[i]);
  dir.remove();
});

test("no agent key or sdkSecret appears in logs, other responses or the database files", async () => {
  const app = recorded("app", svc.handle);
  const minted: { key: string; id: string }[] = [];
  for (const user of ["alice", "bob"]) {
    const res = await app(mintRequest(user));
    assert.equal(res.status, 201);
    minted.push(await res.json());
  }
  const mintResponses = new Set(responses.slice(-2));
  const [alice, bob] = minted;
  const call = (req: Request) => app(req);

  // Allowed, refused, failing, and a confused agent that sends its key where it does not belong.
  await call(agentRequest(alice.key, { intent: "notes.list" }));
  await call(agentRequest(alice.key, { intent: "admin.wipe", payload: { confirm: true } }));
  await call(agentRequest(alice.key, { intent: alice.key }));
  await call(agentRequest(alice.key, { intent: "notes.create", payload: { title: 5, key: bob.key } }));
  await call(agentRequest(alice.key, { intent: "notes.broken" }));
  await call(agentRequest(alice.key, { intent: "something.else", payload: { token: alice.key } }));
  await call(
    new Request(`http://app.test/svc/keys/${alice.key}`, { method: "DELETE", headers: { "x-user": "alice" } }),
  );
  await call(mintRequest("carol", { agentId: bob.key }));
  await call(new Request("http://app.test/svc/keys", { headers: { "x-user": "alice" } }));
  await call(new Request(`http://app.test/svc/keys/${alice.id}`, { method: "DELETE", headers: { "x-user": "alice" } }));
  await call(agentRequest(alice.key, { intent: "notes.list" })); // revoked

  await svc.emit({ type: "note.shared", agentId: "bob", payload: { n: 1 } });
  await svc.sync(); // bob's key mirrored to the cloud before his agent polls there
  const base = `http://127.0.0.1:${cloudServer.port}`;
  const inbox = await (await fetch(`${base}/v1/agent/inbox`, { headers: { authorization: `Bearer ${bob.key}` } }))
    .json();
  await fetch(`${base}/v1/agent/ack`, {
    method: "POST",
    headers: { authorization: `Bearer ${bob.key}`, "content-type": "application/json" },
    body: JSON.stringify({ inboxIds: inbox.items.map((i: { inboxId: number }) => i.inboxId) }),
  });
  await fetch(`${base}/v1/sdk/keys/verify`, {
    method: "POST",
    headers: { authorization: `Bearer ${sdkSecret}`, "x-svc-project": projectId, "content-type": "application/json" },
    body: JSON.stringify({ key: `${sdkSecret}` }),
  });
  await fetch(`${base}/v1/sdk/violations`, {
    headers: { authorization: `Bearer ${sdkSecret}`, "x-svc-project": projectId },
  });
  await fetch(`${base}/v1/sdk/violations`, {
    headers: { authorization: `Bearer ${bob.key}`, "x-svc-project": projectId },
  });
  assert.equal(await svc.sync(), 0, "everything reached the cloud");
  const storage = await openCloudStorage(`file:${dir.file("cloud.db")}`);
  await rotateSdkSecret(storage, projectId);
  await storage.close();
  await svc.emit({ type: "after.rotation", agentId: "bob", payload: {} }).catch(() => {}); // refused, logged

  assert.ok(logs.length > 0 && responses.length > 15, "the story was told");
  const files = readdirSync(dir.path).map((f) => readFileSync(dir.file(f)).toString("latin1"));
  for (const [name, secret] of [["alice's key", alice.key], ["bob's key", bob.key], ["the sdkSecret", sdkSecret]]) {
    for (const line of logs) assert.ok(!line.includes(secret), `${name} in a log line: ${line.slice(0, 300)}`);
    for (const r of responses) {
      if (mintResponses.has(r) && r.text.includes(secret)) continue;
      assert.ok(!r.text.includes(secret), `${name} in the response to ${r.what}: ${r.text.slice(0, 300)}`);
    }
    for (const file of files) assert.ok(!file.includes(secret), `${name} in a database file`);
  }
});

function mintRequest(user: string, extra: Record<string, unknown> = {}): Request {
  return new Request("http://app.test/svc/keys", {
    method: "POST",
    headers: { "x-user": user, "content-type": "application/json" },
    body: JSON.stringify({ name: "k", scopes: [...SCOPES], ...extra }),
  });
}

function agentRequest(key: string, body: unknown): Request {
  return new Request("http://app.test/svc/agent/run", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}
