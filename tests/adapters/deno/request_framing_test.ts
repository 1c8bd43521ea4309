import { test } from "node:test";
import assert from "node:assert/strict";
import { requestFraming } from "../../../adapters/deno/request_framing.ts";

const text = new TextEncoder();

/** The events of `stream` fed in pieces of `size` bytes. */
function eventsOf(stream: Uint8Array, size: number): string[] {
  const seen: string[] = [];
  const feed = requestFraming({
    started: () => seen.push("started"),
    headEnded: () => seen.push("head"),
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
    ...["started", "head", "ended"], // GET /a
    ...["started", "head", "ended"], // POST /b
    ...["started", "head", "ended"], // POST /c
    ...["started", "head", "ended"], // GET /d
    ...["started", "head", "ended"], // POST /e
    ...["started", "head"], // POST /f: 5 of its 10 body bytes, not ended
  ];
  for (const size of [1, 2, 7, 64, stream.byteLength]) assert.deepEqual(eventsOf(stream, size), expected, `${size}`);
});

test("requestFraming reports a head that never ends as started only", () => {
  assert.deepEqual(eventsOf(text.encode("GET / HTTP/1.1\r\nHost: x\r\n"), 3), ["started"]);
});

test("requestFraming reads Content-Length and Transfer-Encoding after any amount of head", () => {
  const pad = `X-Pad: ${"a".repeat(70 * 1024)}\r\n`.repeat(3);
  const stream = text.encode(
    `POST /a HTTP/1.1\r\n${pad}Content-Length: 999999999\r\n\r\n` + "a\r\n\r\n".repeat(3),
  );
  for (const size of [1, 1000, 8192, stream.byteLength]) {
    assert.deepEqual(eventsOf(stream, size), ["started", "head"], `${size}: the body is not taken for requests`);
  }
  const chunked = text.encode(`POST /b HTTP/1.1\r\n${pad}Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n`);
  assert.deepEqual(eventsOf(chunked, 8192), ["started", "head", "ended"]);
});

test("requestFraming takes the last of several Content-Length lines", () => {
  const body = "ab\r\n\r\n"; // 6 bytes that would look like a request if not read as the body
  const stream = text.encode(`POST / HTTP/1.1\r\nContent-Length: 1\r\ncontent-length:  6 \r\n\r\n${body}`);
  assert.deepEqual(eventsOf(stream, 1), ["started", "head", "ended"]);
});

test("requestFraming ignores empty lines between requests, as after a body some clients end with CRLF", () => {
  const stream = text.encode("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi\r\n");
  for (const size of [1, stream.byteLength]) assert.deepEqual(eventsOf(stream, size), ["started", "head", "ended"]);
  const next = text.encode("GET / HTTP/1.1\r\n\r\n\r\n\n\r\nGET / HTTP/1.1\r\n\r\n");
  assert.deepEqual(eventsOf(next, 1), ["started", "head", "ended", "started", "head", "ended"]);
});

test("requestFraming matches the two header names whatever their case, and no name that only begins like one", () => {
  const stream = text.encode(
    "POST /a HTTP/1.1\r\nCONTENT-LENGTH: 3\r\n\r\nabc" +
      "POST /b HTTP/1.1\r\nContent-Lengthy: 5\r\nContent-Lengt: 5\r\nX-Content-Length: 5\r\n\r\n" +
      "POST /c HTTP/1.1\r\nTransfer-Encodings: chunked\r\nTRANSFER-encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n" +
      "GET /d HTTP/1.1\r\nHost: content-length: 9\r\n\r\n",
  );
  const expected = Array.from({ length: 4 }, () => ["started", "head", "ended"]).flat();
  for (const size of [1, 5, stream.byteLength]) assert.deepEqual(eventsOf(stream, size), expected, `${size}`);
});
