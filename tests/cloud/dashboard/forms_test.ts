// Reading the dashboard's forms, through handle() of a real cloud: a form over
// 64 KiB is refused with 413 before it is read further, signed in or not.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { FORM_LIMIT } from "../../../cloud/dashboard/forms.ts";

const CHUNK = 16 * 1024;
const SIXTY_MB = 60 * 1024 * 1024;

/** A form body of up to 60 MB, made as it is pulled; `pulled()` counts the bytes handed out. */
function countedBody(): { stream: ReadableStream<Uint8Array>; pulled(): number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled >= SIXTY_MB) return c.close();
      pulled += CHUNK;
      c.enqueue(new TextEncoder().encode(`a=${"x".repeat(CHUNK - 2)}`));
    },
  });
  return { stream, pulled: () => pulled };
}

function formPost(path: string, body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(`http://cloud.test${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin", ...headers },
    // @ts-ignore: needed by Node's fetch for a stream body
    duplex: "half",
  });
}

describe("dashboard forms", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("a chunked 60 MB sign-in post without Content-Length is refused with 413 after reading about 64 KiB", async () => {
    for (const path of ["/dashboard/sign-in", "/dashboard/projects"]) {
      const body = countedBody();
      const res = await t.cloud.handle(formPost(path, body.stream));
      assert.equal(res.status, 413, path);
      assert.equal(res.headers.get("connection"), "close", path);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'self'/, path);
      assert.match(await res.text(), /at most 64 KiB/, path);
      assert.ok(body.pulled() <= FORM_LIMIT + 2 * CHUNK, `${path}: read ${body.pulled()} bytes with a 64 KiB limit`);
    }
  });

  test("a sign-in post declaring a Content-Length over 64 KiB is refused with 413 before reading it", async () => {
    const body = countedBody();
    const res = await t.cloud.handle(formPost("/dashboard/sign-in", body.stream, { "content-length": "62914560" }));
    assert.equal(res.status, 413);
    assert.equal(res.headers.get("connection"), "close");
    assert.match(await res.text(), /at most 64 KiB/);
    assert.ok(body.pulled() <= CHUNK, `read ${body.pulled()} bytes before refusing`);
    const small = await t.cloud.handle(formPost("/dashboard/sign-in", "a=1", { "content-length": "99999999" }));
    assert.equal(small.status, 413, "the declared length decides, whatever follows");
  });

  test("a form of exactly 64 KiB is read, and one that is not a form is a 400", async () => {
    const full = `email=${"x".repeat(FORM_LIMIT - 6)}`;
    assert.equal(full.length, FORM_LIMIT);
    const res = await t.cloud.handle(formPost("/dashboard/sign-in", full));
    assert.equal(res.status, 403, "read whole, then refused for its missing CSRF token");
    const json = await t.cloud.handle(formPost("/dashboard/sign-in", "{}", { "content-type": "application/json" }));
    assert.equal(json.status, 400);
  });
});
