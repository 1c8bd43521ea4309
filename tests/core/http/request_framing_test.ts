import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_HEAD_BYTES, requestFraming } from "../../../core/http/request_framing.ts";

const text = new TextEncoder();

/** The events of `stream` fed in pieces of `size` bytes, with each head's first line. */
function eventsOf(stream: Uint8Array, size: number): string[] {
  const seen: string[] = [];
  const feed = requestFraming({
    started: () => seen.push("started"),
    headEnded: (head) => seen.push(`head ${new TextDecoder().decode(head).trim().split(/\r?\n/)[0]}`),
    ended: () => seen.push("ended"),
  });
  for (let at = 0; at < stream.byteLength; at += size) feed(stream.slice(at, at + size));
  return seen;
}

test("requestFraming reports where each request starts, where its head ends and where it ends, in pieces of any size", () => {
  const stream = text.encode(
    "GET /a HTTP/1.1\r\nHost: x\r\n\r\n" +
      "POST /b HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" +
      "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n" +
      "\r\nGET /d HTTP/1.1\nHost: x\n\n" + // an empty line before it, bare line feeds
      "POST /e HTTP/1.1\r\ntransfer-encoding: chunked\r\ncontent-length: 99\r\n\r\n0\r\n\r\n" +
      "POST /f HTTP/1.1\r\nContent-Length: 10\r\n\r\n12345",
  );
  const expected = [
    ...["started", "head GET /a HTTP/1.1", "ended"],
    ...["started", "head POST /b HTTP/1.1", "ended"],
    ...["started", "head POST /c HTTP/1.1", "ended"],
    ...["started", "head GET /d HTTP/1.1", "ended"],
    ...["started", "head POST /e HTTP/1.1", "ended"],
    ...["started", "head POST /f HTTP/1.1"], // 5 of its 10 body bytes: not ended
  ];
  for (const size of [1, 2, 7, 64, stream.byteLength]) assert.deepEqual(eventsOf(stream, size), expected, `${size}`);
});

test("requestFraming reports a head that never ends as started only, and keeps at most MAX_HEAD_BYTES of a long head", () => {
  assert.deepEqual(eventsOf(text.encode("GET / HTTP/1.1\r\nHost: x\r\n"), 3), ["started"]);
  let kept = 0;
  const feed = requestFraming({ started() {}, headEnded: (head) => kept = head.byteLength, ended() {} });
  feed(text.encode(`GET / HTTP/1.1\r\nX-Long: ${"a".repeat(2 * MAX_HEAD_BYTES)}`));
  feed(text.encode("\r\n\r\n"));
  assert.equal(kept, MAX_HEAD_BYTES);
});
