import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import type { FetchHandler, RunningServer, ServeOptions } from "../../adapters/node.ts";
import { runtime } from "../fixtures/runtime.ts";

// The adapter a user of this runtime picks: Deno.serve, Bun.serve, srvx on Node.
async function adapter(): Promise<(fetch: FetchHandler, options?: ServeOptions) => Promise<RunningServer>> {
  return (await import(`../../adapters/${runtime}.ts`)).serve;
}

/** An IPv4 address of this machine that is not loopback, if it has one. */
function outwardAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a?.family === "IPv4" && !a.internal)?.address;
}

/** Whether a TCP connection to host:port is accepted (true) or refused (false). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

test(`adapters/${runtime} listens on 127.0.0.1 only by default and says so`, async () => {
  const serve = await adapter();
  const server = await serve(() => new Response("here"), { port: 0 });
  try {
    assert.equal(server.hostname, "127.0.0.1");
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    assert.equal(await accepts("127.0.0.1", server.port), true);
    const outward = outwardAddress();
    if (outward) assert.equal(await accepts(outward, server.port), false, `reachable on ${outward}`);
  } finally {
    await server.close();
  }
});

test(`adapters/${runtime} listens on every interface when asked for hostname 0.0.0.0`, async () => {
  const serve = await adapter();
  const server = await serve(() => new Response("here"), { port: 0, hostname: "0.0.0.0" });
  try {
    assert.equal(server.hostname, "0.0.0.0");
    assert.equal(await accepts("127.0.0.1", server.port), true);
    const outward = outwardAddress();
    if (outward) assert.equal(await accepts(outward, server.port), true, `not reachable on ${outward}`);
  } finally {
    await server.close();
  }
});
