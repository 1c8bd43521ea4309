// The app's log tells the operator what to run: every `svc-cloud …` command its messages name is one the command line
// has (it once said `project rotate`, a command that never existed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { REFUSED_CREDENTIALS_MESSAGE } from "../../../core/cloud_link/revocation_follower.ts";
import { cloudAtStartError } from "../../../core/app/cloud_guard.ts";
import { SvcError } from "../../../core/errors/mod.ts";
import { USAGE } from "../../../cloud/cli/usage.ts";

test("every svc-cloud command the app's log names is one the command line has", () => {
  const refusedAtStart = cloudAtStartError("http://cloud.test", new SvcError("CLOUD_CREDENTIALS_REFUSED", "refused"));
  const named = [REFUSED_CREDENTIALS_MESSAGE, refusedAtStart.message]
    .flatMap((message) => [...message.matchAll(/`svc-cloud ([a-z-]+ [a-z-]+)`/g)].map((m) => m[1]));
  assert.ok(named.length >= 2, "the messages name the command that rotates the secret");
  for (const command of named) assert.ok(USAGE.includes(`svc-cloud ${command} `), command);
});
