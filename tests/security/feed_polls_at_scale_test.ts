// @slow: 5,000 concurrent long polls, production's per-project cap at full scale (about 15 s)
// The revocation feed's per-project cap as the cloud ships it: feed_polls_test.ts checks the cap through the test
// seam with 100 polls; this fills the default MAX_POLLS_PER_PROJECT.
import { after, before, test } from "node:test";
import { MAX_POLLS_PER_PROJECT } from "../../cloud/feed/mod.ts";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";
import { assertFeedPollsCapped, type CountedStatements, countStatements } from "../fixtures/feed_polls.ts";

let t: TestCloud;
let counted: CountedStatements;
before(async () => {
  t = await startTestCloud({ recheckMs: 50 });
  counted = countStatements(t.client);
});
after(() => t.close());

test(`feed polls are capped per project at ${MAX_POLLS_PER_PROJECT}: past it, 429 with Retry-After`, async () => {
  await assertFeedPollsCapped(t, counted, MAX_POLLS_PER_PROJECT);
});
