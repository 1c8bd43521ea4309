import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCloud } from "../../../cloud/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject, rotateSdkSecret } from "../../../cloud/projects/projects.ts";
import { call, type Project, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

describe("SDK auth", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  const unauthorized = async (headers: Record<string, string>) => {
    const res = await t.raw("GET", "/v1/sdk/violations", { headers });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.deepEqual(res.body, {
      ok: false,
      error: { code: "UNAUTHORIZED", message: "Missing or invalid credentials" },
    });
  };

  test("accepts the project's current secret with its id", async () => {
    assert.equal((await t.sdk("GET", "/v1/sdk/violations")).status, 200);
  });

  test("answers 401 UNAUTHORIZED for missing, malformed or unknown credentials", async () => {
    const { id, secret } = t.project;
    await unauthorized({});
    await unauthorized({ authorization: `Bearer ${secret}` });
    await unauthorized({ "x-svc-project": id });
    await unauthorized({ authorization: `Bearer  ${secret}`, "x-svc-project": id });
    await unauthorized({ authorization: `Basic ${secret}`, "x-svc-project": id });
    await unauthorized({ authorization: `Bearer ${secret}x`, "x-svc-project": id });
    await unauthorized({ authorization: `Bearer ${secret}`, "x-svc-project": "prj_01JABCDEFGHJKMNPQRSTVWXYZ0" });
    await unauthorized({ authorization: `Bearer ${secret}`, "x-svc-project": "not-a-project" });
  });

  test("answers 401 when the secret belongs to another project", async () => {
    const other = await t.newProject();
    await unauthorized({ authorization: `Bearer ${other.secret}`, "x-svc-project": t.project.id });
  });

  test("answers 401 for an agent key on an SDK route (wrong kind)", async () => {
    const { key } = await t.mintKey("u-kind");
    await unauthorized({ authorization: `Bearer ${key}`, "x-svc-project": t.project.id });
  });
});

describe("agent auth", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("answers 401 for a missing, unknown or SDK credential on agent routes", async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: `Bearer svc_live_${"x".repeat(40)}` },
      { authorization: `Bearer ${t.project.secret}`, "x-svc-project": t.project.id },
    ];
    for (const headers of cases) {
      const poll = await t.raw("GET", "/v1/agent/inbox", { headers });
      assert.equal(poll.status, 401);
      assert.equal(poll.body.error.code, "UNAUTHORIZED");
      const ack = await t.raw("POST", "/v1/agent/ack", { headers, body: { inboxIds: [1] } });
      assert.equal(ack.status, 401);
    }
  });

  test("answers 401 once the key is revoked, on the next request", async () => {
    const { key, id } = await t.mintKey("u-revoke");
    assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 200);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${id}`)).status, 200);
    assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 401);
  });

  test("records the key's last use", async () => {
    const { key } = await t.mintKey("u-used");
    await t.agent(key, "GET", "/v1/agent/inbox");
    const { body } = await t.sdk("GET", "/v1/sdk/keys?userId=u-used");
    assert.ok(body.keys[0].lastUsedAt);
  });
});

describe("secret rotation", () => {
  const dir = tempDir();
  after(() => dir.remove());

  test("takes effect at once on a running cloud when another process rotates the secret", async () => {
    const url = `file:${dir.file("rotate.db")}`;
    const admin = await openCloudStorage(url); // stands for the command line, a separate connection
    const { project, sdkSecret } = await createProject(admin, "Rotating");
    const cloud = createCloud({ db: url });
    const get = (p: Project) =>
      call(cloud, "GET", "/v1/sdk/intents", {
        headers: { authorization: `Bearer ${p.secret}`, "x-svc-project": p.id },
      });
    assert.equal((await get({ id: project.id, secret: sdkSecret })).status, 200);
    const fresh = await rotateSdkSecret(admin, project.id);
    assert.ok(fresh);
    assert.equal((await get({ id: project.id, secret: sdkSecret })).status, 401);
    assert.equal((await get({ id: project.id, secret: fresh })).status, 200);
    await cloud.close();
    await admin.close();
  });
});
