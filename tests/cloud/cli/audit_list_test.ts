// `audit list --key KEY_ID`: the audit log of one key on the command line, as the dashboard's and /v1's `key` filter.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { runAuditList } from "../../../cloud/cli/policy_commands.ts";
import { parseCommandLine } from "../../../cloud/cli/usage.ts";
import { type CloudRepositories, openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { runKeysCommand } from "../../../cloud/cli/keys_commands.ts";
import { keyRecord } from "../../fixtures/key_records.ts";

describe("audit list --key", () => {
  const dir = tempDir();
  const db = `file:${dir.file("audit.db")}`;
  let storage: CloudRepositories;
  let projectId: string;
  before(async () => {
    storage = await openCloudStorage(db);
    projectId = (await createProject(storage, "A")).project.id;
  });
  after(async () => {
    await storage.close();
    dir.remove();
  });

  test("lists only the entries about that key", async () => {
    const [ann, bob] = [keyRecord("ann"), keyRecord("bob")];
    for (const k of [ann, bob]) await storage.keys.insertKey(projectId, k, "user");
    for (const user of ["ann", "bob"]) {
      const line = parseCommandLine(["keys", "revoke", "--user", user, "--project", projectId]);
      await runKeysCommand({ url: db }, line.words.slice(1), line);
    }
    const out = await runAuditList({ url: db }, parseCommandLine(["audit", "list", "--key", ann.id]));
    const entries = (out.json as { entries: { action: string; target: string }[] }).entries;
    assert.deepEqual(entries.map((e) => [e.action, e.target]), [["key.revoke", ann.id]]);
    assert.match(out.text, new RegExp(`cli {2}key\\.revoke {2}${ann.id}`));
    const none = await runAuditList({ url: db }, parseCommandLine(["audit", "list", "--key", "no-such-key"]));
    assert.equal(none.text, "No entries.");
  });
});
