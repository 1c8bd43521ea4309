// The first-run setup page states the password rule beside the field, where a screen reader reads it too.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { createSetupLink, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../../cloud/operators/mod.ts";
import { formClient, testAddress } from "./form_client.ts";

const clock = Date.parse("2025-06-01T12:00:00.000Z");
let t: TestCloud;
before(async () => {
  t = await startTestCloud({ dashboard: { now: () => clock, clientAddress: testAddress } });
});
after(() => t.close());

test("the setup page states the password rule next to the field, tied to it by aria-describedby", async () => {
  assert.equal(MIN_PASSWORD_LENGTH, 12);
  const link = await createSetupLink(t.storage, clock);
  const page = await formClient(t.cloud.handle).get(link!);
  assert.equal(page.status, 200);
  const field = /<input id="password"[^>]*>/.exec(page.text)?.[0] ?? "";
  assert.match(field, /aria-describedby="password-rule"/);
  assert.match(field, new RegExp(`minlength="${MIN_PASSWORD_LENGTH}"`));
  assert.match(field, new RegExp(`maxlength="${MAX_PASSWORD_LENGTH}"`));
  const rule = /<[a-z]+ id="password-rule"[^>]*>([^<]*)</.exec(page.text)?.[1];
  assert.equal(rule, `At least ${MIN_PASSWORD_LENGTH} characters (at most ${MAX_PASSWORD_LENGTH}).`);
});
