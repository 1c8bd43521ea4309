// @slow: packaging (npm install of the generator) and a tsc subprocess
// A client generated from the cloud's OpenAPI document, as a user would make one (openapi-typescript +
// openapi-fetch, on TypeScript 5 from tests/generated_client/, installed by .ci/run or here when missing): a plain
// flow type-checks with 0 errors (create an event and read its inboxId, report a violation and read its id, the two
// batch routes) and runs against a real cloud on a socket.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { RunningServer } from "../../core/http/mod.ts";
import { listen } from "../fixtures/servers.ts";
import { repoRoot, run } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";

const skip = runtime !== "node" && "runs on Node only: it drives npm, openapi-typescript and tsc as subprocesses";
const tools = join(repoRoot, "tests", "generated_client");
const bin = (name: string) => join(tools, "node_modules", ".bin", name);
const dir = tempDir("svc-generated-client-");
let t: TestCloud;
let server: RunningServer;

before(async () => {
  if (skip) return;
  if (!existsSync(bin("openapi-typescript")) || !existsSync(bin("tsc"))) {
    const install = await run(["npm", "install", "--prefix", tools, "--no-audit", "--no-fund"], repoRoot);
    assert.equal(install.code, 0, install.stderr);
  }
  symlinkSync(join(tools, "node_modules"), dir.file("node_modules"), "dir");
  t = await startTestCloud();
  server = await listen(t.cloud.handle);
  const doc = await t.raw("GET", "/v1/openapi.json");
  writeFileSync(dir.file("openapi.json"), JSON.stringify(doc.body));
  const generated = await run([bin("openapi-typescript"), "openapi.json", "-o", "schema.d.ts"], dir.path);
  assert.equal(generated.code, 0, generated.stderr);
}, { timeout: 300_000 });

after(async () => {
  await server?.close();
  await t?.close();
  dir.remove();
});

/** The flow a user writes with the generated types: no casts, no narrowing beyond `data`'s own. */
const FLOW = `import createClient from "openapi-fetch";
import type { paths } from "./schema.d.ts";

const [baseUrl, projectId, sdkSecret] = process.argv.slice(2);
const cloud = createClient<paths>({
  baseUrl,
  headers: { authorization: \`Bearer \${sdkSecret}\`, "x-svc-project": projectId },
});
const event = { eventId: "order-1", type: "order.paid", agentId: "alice", payload: { orderId: 1 } };

const created = await cloud.POST("/v1/events", { body: event });
if (!created.data) throw new Error("event refused");
const inboxId: number = created.data.inboxId;
const duplicate: boolean = created.data.duplicate;

const reported = await cloud.POST("/v1/sdk/violations", {
  body: { violation: { apiKeyId: crypto.randomUUID(), kind: "FORBIDDEN_SCOPE", severity: "warning" } },
});
if (!reported.data) throw new Error("violation refused");
const id: string = reported.data.id;

const batch = await cloud.POST("/v1/events/batch", {
  body: { events: [event, { ...event, eventId: "order-2" }] },
});
if (!batch.data) throw new Error("batch refused");
const inboxIds: number[] = batch.data.results.map((r) => r.inboxId);

const reports = await cloud.POST("/v1/sdk/violations/batch", {
  body: { violations: [{ apiKeyId: crypto.randomUUID(), kind: "UNKNOWN_INTENT", severity: "info" }] },
});
if (!reports.data) throw new Error("violation batch refused");
const ids: string[] = reports.data.ids;

console.log(JSON.stringify({ inboxId, duplicate, id, inboxIds, ids }));
`;

test("a client generated from GET /v1/openapi.json type-checks a plain flow with 0 errors", { skip }, async () => {
  writeFileSync(dir.file("flow.ts"), FLOW);
  const options = ["--strict", "--noEmit", "--target", "es2022", "--module", "nodenext", "--types", "node"];
  writeFileSync(dir.file("package.json"), JSON.stringify({ type: "module" }));
  const checked = await run(
    [bin("tsc"), ...options, "--skipLibCheck", "--allowImportingTsExtensions", "flow.ts"],
    dir.path,
  );
  assert.equal(checked.stdout + checked.stderr, "", "tsc reports no error");
  assert.equal(checked.code, 0);
});

test("the same flow runs against a real cloud and reads each answer's one shape", { skip }, async () => {
  writeFileSync(dir.file("flow.ts"), FLOW);
  const ran = await run([process.execPath, "flow.ts", server.url, t.project.id, t.project.secret], dir.path);
  assert.equal(ran.code, 0, ran.stderr);
  const out = JSON.parse(ran.stdout);
  assert.ok(Number.isInteger(out.inboxId) && out.inboxId > 0);
  assert.equal(out.duplicate, false);
  assert.match(out.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(out.inboxIds, [out.inboxId, out.inboxIds[1]], "the repeated event answers its first inboxId");
  assert.ok(out.inboxIds[1] > out.inboxId);
  assert.equal(out.ids.length, 1);
});
