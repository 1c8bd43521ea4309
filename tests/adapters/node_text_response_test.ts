import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { serve } from "../../adapters/node.ts";
import { json, textResponse } from "../../core/http/mod.ts";
import { runtime } from "../fixtures/runtime.ts";

const skip = runtime !== "node" && "Node itself (on Bun and Deno, answers stay their Response)";

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends a request over a socket and returns what arrived, headers as Node parsed them. */
function send(url: string, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { connection: "close" } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => text += d).on("end", () => {
        resolve({ status: res.statusCode!, headers: res.headers, text });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

test("the node adapter writes a toolkit answer's text with its length (srvx's FastResponse), any other as srvx does", {
  skip,
}, async () => {
  const body = { ok: true, text: "Grüße, 東京 🔑" };
  const server = await serve((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/json") return Promise.resolve(json(body, 201, { "x-extra": "1" }));
    if (path === "/cookies") {
      const answer = textResponse("two", { headers: { "content-type": "text/plain" } });
      answer.headers.append("set-cookie", "a=1");
      answer.headers.append("set-cookie", "b=2");
      return Promise.resolve(answer);
    }
    return Promise.resolve(new Response("streamed"));
  }, { port: 0, hostname: "127.0.0.1" });
  try {
    const direct = await send(`${server.url}/json`);
    assert.equal(direct.status, 201);
    assert.deepEqual(JSON.parse(direct.text), body);
    assert.equal(direct.headers["content-length"], String(Buffer.byteLength(JSON.stringify(body))));
    assert.equal(direct.headers["transfer-encoding"], undefined);
    assert.equal(direct.headers["content-type"], "application/json");
    assert.equal(direct.headers["x-extra"], "1");

    const head = await send(`${server.url}/json`, "HEAD");
    assert.equal(head.status, 201);
    assert.equal(head.text, "");

    const cookies = await send(`${server.url}/cookies`);
    assert.deepEqual(cookies.headers["set-cookie"], ["a=1", "b=2"]);
    assert.equal(cookies.text, "two");
    assert.equal(cookies.headers["content-length"], "3");

    const streamed = await send(`${server.url}/other`);
    assert.equal(streamed.text, "streamed");
    assert.equal(streamed.headers["transfer-encoding"], "chunked"); // srvx's own path: a Web stream, read out
  } finally {
    await server.close();
  }
});
