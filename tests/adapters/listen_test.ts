import { test } from "node:test";
import assert from "node:assert/strict";
import type { FetchHandler, RunningServer, ServeOptions } from "../../adapters/node.ts";
import { runtime } from "../fixtures/runtime.ts";

// The adapter a user of this runtime picks: Deno.serve, Bun.serve, srvx on Node.
async function adapter(): Promise<(fetch: FetchHandler, options?: ServeOptions) => Promise<RunningServer>> {
  return (await import(`../../adapters/${runtime}.ts`)).serve;
}

test(`adapters/${runtime} prints a reachable url, never the wildcard 0.0.0.0`, async () => {
  const serve = await adapter();
  const server = await serve(() => new Response("here"), { port: 0 });
  try {
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    assert.equal(await (await fetch(server.url)).text(), "here");
  } finally {
    await server.close();
  }
});

test(`adapters/${runtime} refuses a port in use with one clear line and code EADDRINUSE`, async () => {
  const serve = await adapter();
  const first = await serve(() => new Response("first"), { port: 0, hostname: "127.0.0.1" });
  try {
    await assert.rejects(serve(() => new Response("second"), { port: first.port, hostname: "127.0.0.1" }), (error) => {
      const { code, message } = error as { code: string; message: string };
      assert.equal(code, "EADDRINUSE");
      assert.equal(
        message,
        `Port ${first.port} on 127.0.0.1 is already in use: stop the other server or choose another port`,
      );
      return true;
    });
    assert.equal(await (await fetch(first.url)).text(), "first");
  } finally {
    await first.close();
  }
});
