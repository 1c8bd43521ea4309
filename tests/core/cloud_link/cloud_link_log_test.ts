// A hybrid app whose cloud is down, with the default logger: each problem is one line with an ISO timestamp and no
// stack trace, and each part of the cloud link says "reconnected after N s" when the cloud answers again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvc } from "../../../mod.ts";
import { startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { keepPolicy } from "../../fixtures/kept_policy.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

test("cloud-down logs are one timestamped line each, then a reconnected line per part of the link", async () => {
  const dir = tempDir("svc-cloud-link-log-");
  const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
  const config = cloud.appConfig();
  await cloud.stop();
  await keepPolicy(`file:${dir.file("app.db")}`); // as read on an earlier run, so the app mints while the cloud is down
  const printed: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => printed.push(args);
  const svc = createSvc({
    mode: "hybrid",
    storage: `file:${dir.file("app.db")}`,
    cloud: config,
    userResolver: () => "alice",
    scopes: ["a"],
  });
  const lines = () => printed.map((args) => args.map(String).join(" "));
  try {
    const minted = await svc.handle(
      new Request("http://app/svc/keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "k", scopes: ["a"] }),
      }),
    );
    assert.equal(minted.status, 201);
    await svc.sync();
    const down = ["the intent manifest could not be uploaded", "cloud sync paused", "the revocation feed cannot be"];
    await waitFor("the three cloud-down lines", () => down.every((m) => lines().some((l) => l.includes(m))));
    for (const args of printed) {
      assert.equal(args.length, 1, `one string, no cause object: ${args.map(String).join(" ")}`);
      const line = String(args[0]);
      assert.doesNotMatch(line, /\n/, line);
      assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[svc\] /, line);
    }
    assert.ok(
      lines().some((l) => /cloud sync paused; retrying in the background: The cloud cannot be reached/.test(l)),
    );

    await cloud.start(); // the same port and database
    await waitFor("the outbox drained", async () => await svc.sync() === 0);
    const back = ["cloud sync resumed", "the revocation feed is reachable again", "the intent manifest was uploaded"];
    await waitFor("a reconnected line per part", () => back.every((m) => lines().some((l) => l.includes(m))));
    for (const m of back) {
      const line = lines().find((l) => l.includes(m))!;
      assert.match(line, /: reconnected after \d+ s$/, line);
    }
  } finally {
    console.error = consoleError;
    await svc.close();
    await cloud.stop();
    dir.remove();
  }
});
