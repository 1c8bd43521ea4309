// `project policy` changes what its flags name and keeps the rest: the kinds and severities an operator chose in
// the dashboard survive a new threshold, and the key lifetimes are set, kept and cleared by their own flags.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { runPolicyCommand } from "../../../cloud/cli/policy_commands.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { readPolicy, updatePolicy } from "../../../cloud/violations/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

describe("project policy", () => {
  const dir = tempDir();
  let url: string;
  let projectId: string;
  before(async () => {
    url = `file:${join(dir.path, "cloud.db")}`;
    const storage = await openCloudStorage(url);
    projectId = (await createProject(storage, "policy")).project.id;
    // As the dashboard sets it: counted kinds and severities beside the threshold.
    await updatePolicy(storage, projectId, {
      autoRevoke: { threshold: 5, windowMinutes: 60, kinds: ["FORBIDDEN_SCOPE"], severities: ["severe"] },
    }, { actor: "ops@example.com", sourceAddress: null });
    await storage.close();
  });
  after(() => dir.remove());

  const policy = (...args: string[]) => runPolicyCommand({ url }, projectId, parseCommandLine(["x", ...args]));
  const stored = async () => {
    const storage = await openCloudStorage(url);
    try {
      return await readPolicy(storage, projectId);
    } finally {
      await storage.close();
    }
  };

  test("a new threshold or window keeps the kinds and severities set in the dashboard", async () => {
    await policy("--auto-revoke-threshold", "3", "--auto-revoke-window", "30");
    assert.deepEqual((await stored()).autoRevoke, {
      threshold: 3,
      windowMinutes: 30,
      kinds: ["FORBIDDEN_SCOPE"],
      severities: ["severe"],
    });
    const out = await policy("--auto-revoke-window", "10");
    assert.deepEqual((await stored()).autoRevoke, {
      threshold: 3,
      windowMinutes: 10,
      kinds: ["FORBIDDEN_SCOPE"],
      severities: ["severe"],
    });
    assert.match(out.text, /Counted: kind FORBIDDEN_SCOPE, severity severe\./);
  });

  test("the key lifetime flags set, keep and clear keyLifetime, and keep the rest", async () => {
    await policy("--key-lifetime-max", "90");
    assert.deepEqual((await stored()).keyLifetime, { defaultDays: null, maxDays: 90 });
    const both = await policy("--key-lifetime-default", "30", "--retention-days", "7");
    assert.deepEqual((await stored()).keyLifetime, { defaultDays: 30, maxDays: 90 });
    assert.match(both.text, /key lifetime: default 30 days, at most 90 days/);
    await policy("--key-lifetime-max", "none");
    assert.deepEqual((await stored()).keyLifetime, { defaultDays: 30, maxDays: null });
    const after = await stored();
    assert.equal(after.retentionDays, 7);
    assert.equal(after.autoRevoke?.kinds?.[0], "FORBIDDEN_SCOPE", "untouched by key lifetime flags");
    await policy("--key-lifetime", "off");
    assert.equal((await stored()).keyLifetime, null);
  });

  test("contradicting or out-of-range flags are usage errors that change nothing", async () => {
    const before = await stored();
    for (
      const args of [
        ["--key-lifetime", "on"],
        ["--key-lifetime", "off", "--key-lifetime-max", "9"],
        ["--key-lifetime-max", "0"],
        ["--key-lifetime-default", "40", "--key-lifetime-max", "30"],
        ["--auto-revoke", "off", "--auto-revoke-threshold", "2"],
      ]
    ) {
      await assert.rejects(policy(...args), (e: Error & { code?: string }) => e.code === "USAGE", args.join(" "));
    }
    assert.deepEqual(await stored(), before);
  });

  test("counts of one read in the singular: 1 counted violation, 1 minute, 1 day", async () => {
    const shown = await policy(
      "--auto-revoke-threshold",
      "1",
      "--auto-revoke-window",
      "1",
      "--retention-days",
      "1",
      "--key-lifetime-default",
      "1",
      "--key-lifetime-max",
      "2",
    );
    assert.match(shown.text, /auto-revoke: On: 1 counted violation of one key within 1 minute revokes it\./);
    assert.match(shown.text, /retention of acknowledged items: 1 day\n/);
    assert.match(shown.text, /key lifetime: default 1 day, at most 2 days/);
  });
});
