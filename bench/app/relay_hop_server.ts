// Prototype behind bench/README.md "Fourth pass": what the Deno relay's inner hop costs over loopback TCP against
// a Unix socket. One Deno process serves the bare row's handler (read the JSON body, answer the run's JSON) on
// `Deno.serve` over TCP and over a Unix path, and two minimal relays of the adapter's shape (`Deno.listen` on TCP,
// one `Deno.connect` to the inner server per client connection, one 8 KiB buffer each way), then prints
// `{ direct, tcp, unix, piped }` (ports on 127.0.0.1; `piped`: TCP, the answer's direction through `pipeTo`) for wrk to load in turn:
//   deno run -A bench/app/relay_hop_server.ts
// Not the adapter: no limits, no framing, no timeouts; only the copy and the second socket.
import { RUN_ANSWER } from "./notes_app.ts";

const answer = JSON.stringify(RUN_ANSWER);
const headers = { "content-type": "application/json" };
const handler = async (req: Request) => {
  await req.json();
  return new Response(answer, { headers });
};
const path = await Deno.makeTempFile({ prefix: "relay-hop-", suffix: ".sock" });
await Deno.remove(path);
const direct = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, handler);
Deno.serve({ path, onListen() {} }, handler);

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(8192);
  try {
    for (let n = await from.read(buffer); n !== null; n = await from.read(buffer)) {
      for (let done = 0; done < n;) done += await to.write(buffer.subarray(done, n));
    }
    await to.closeWrite();
  } catch {
    // the other side closed
  }
}

function relay(connect: () => Promise<Deno.Conn>, piped = false): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  (async () => {
    for await (const client of listener) {
      client.setNoDelay(true);
      connect().then(async (inner) => {
        // `piped`: the answer's direction through the streams' own pipeTo (issue 41's "native piping"), the request's
        // still read here (the adapter must see it for its timeouts).
        const back = piped
          ? inner.readable.pipeTo(client.writable, { preventClose: true }).catch(() => {})
          : pump(inner, client);
        await Promise.all([pump(client, inner), back]);
        for (const conn of [client, inner]) {
          try {
            conn.close();
          } catch {
            // closed already
          }
        }
      }, () => client.close());
    }
  })();
  return listener.addr.port;
}

const tcp = relay(async () => {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: direct.addr.port });
  conn.setNoDelay(true);
  return conn;
});
const unix = relay(() => Deno.connect({ transport: "unix", path }));
const piped = relay(async () => {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: direct.addr.port });
  conn.setNoDelay(true);
  return conn;
}, true);
console.log(JSON.stringify({ direct: direct.addr.port, tcp, unix, piped }));
