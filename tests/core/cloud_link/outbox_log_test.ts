import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvc } from "../../../mod.ts";
import { startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { keepPolicy } from "../../fixtures/kept_policy.ts";

test("a hybrid app whose cloud is down logs each problem once, its cause beside the message and not inside it", async () => {
  // A port that was just free: bind one, note it, release it.
  const probe = await startCloudServer(":memory:");
  const endpoint = probe.url;
  await probe.stop();
  const logged: { message: string; cause: unknown }[] = [];
  const dir = tempDir("svc-outbox-log-");
  await keepPolicy(`file:${dir.file("app.db")}`); // read on an earlier run: it mints while the cloud is down
  const svc = createSvc({
    mode: "hybrid",
    storage: `file:${dir.file("app.db")}`,
    cloud: {
      endpoint,
      projectId: "prj_01JABCDEFGHJKMNPQRSTVWXYZ0",
      sdkSecret: `svcs_${"s".repeat(40)}`,
      retryMinMs: 10,
    },
    userResolver: () => "alice",
    scopes: ["a"],
    logger: (message, cause) => logged.push({ message, cause }),
  });
  try {
    const minted = await svc.handle(
      new Request("http://app/svc/keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "k", scopes: ["a"] }),
      }),
    );
    assert.equal(minted.status, 201, "the app keeps minting while the cloud is down");
    assert.ok(await svc.sync() > 0, "the mirror waits in the outbox");
    const paused = logged.filter((entry) => entry.message.startsWith("cloud sync paused"));
    assert.equal(paused.length, 1);
    assert.equal(paused[0].message, "cloud sync paused; retrying in the background");
    assert.equal((paused[0].cause as { code?: string }).code, "CLOUD_UNAVAILABLE");
    for (const { message, cause } of logged) {
      assert.equal(message.includes((cause as Error).message), false, `"${message}" repeats its cause`);
    }
  } finally {
    await svc.close();
    dir.remove();
  }
});
