import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { serve } from "../../adapters/node.ts";
import { readBody } from "../../core/http/mod.ts";
import { runtime } from "../fixtures/runtime.ts";

const skip = runtime === "deno" && "on Deno, use adapters/deno";

/** Sends a POST over a socket, with a declared length or chunked, and returns the status and text. */
function post(url: string, body: string, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json", connection: "close" };
    if (!chunked) headers["content-length"] = String(Buffer.byteLength(body));
    const req = request(url, { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => text += d).on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", reject);
    if (chunked) {
      req.write(body.slice(0, 3));
      req.end(body.slice(3));
    } else req.end(body);
  });
}

test(
  "the node adapter reads a body of declared length, once, with every byte (multi-byte text too)",
  { skip },
  async () => {
    const server = await serve(async (req) => {
      const bytes = await readBody(req, 1024);
      const again = await req.arrayBuffer().then(() => "read twice", (e: Error) => e.name);
      return new Response(JSON.stringify({ text: new TextDecoder().decode(bytes), again }));
    }, { port: 0, hostname: "127.0.0.1" });
    try {
      const body = JSON.stringify({ title: "Grüße, 東京", pad: "x".repeat(700) });
      const res = await post(server.url, body, false);
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(res.text), { text: body, again: "TypeError" });
    } finally {
      await server.close();
    }
  },
);

test("the node adapter still reads a chunked body (no declared length) under the limit", { skip }, async () => {
  const server = await serve(async (req) => {
    try {
      return new Response(new TextDecoder().decode(await readBody(req, 8)));
    } catch (error) {
      return new Response((error as { code?: string }).code ?? "?", { status: 413 });
    }
  }, { port: 0, hostname: "127.0.0.1" });
  try {
    assert.deepEqual(await post(server.url, '{"a":1}', true), { status: 200, text: '{"a":1}' });
    assert.deepEqual(await post(server.url, '{"a":"long"}', true), { status: 413, text: "PAYLOAD_TOO_LARGE" });
    assert.deepEqual(await post(server.url, '{"a":"long"}', false), { status: 413, text: "PAYLOAD_TOO_LARGE" });
  } finally {
    await server.close();
  }
});
