// The floor of each runtime: its own server (`Deno.serve`, `Bun.serve`, `node:http`) with no toolkit and no
// adapter, reading the JSON body and answering the same bytes as a successful agent run.
import { createServer } from "node:http";
import { answerKeptByClone, withClientAddress } from "../../core/http/mod.ts";

type Addr = { hostname: string; port: number };
type Handler = (req: Request) => Promise<Response>;
type DenoHandler = (req: Request, info: { remoteAddr: Addr }) => Response | Promise<Response>;
type Runtimes = {
  Deno?: { serve(options: Addr & { onListen(): void }, handler: DenoHandler): { addr: Addr } };
  Bun?: { serve(options: Addr & { fetch: Handler }): { port: number } };
};

/**
 * The bare floor's handler: reads the JSON body, answers `answer`.
 *
 * @param answer The JSON answer, already serialised.
 * @returns The handler.
 */
export function bareHandler(answer: string): Handler {
  const headers = { "content-type": "application/json" };
  return async (req) => {
    await req.json();
    return new Response(answer, { headers });
  };
}

/**
 * Serves the bare floor on 127.0.0.1, a free port, with the runtime's own server.
 *
 * @param answer The JSON answer, already serialised.
 * @returns The port.
 */
export function serveBare(answer: string): Promise<number> {
  const { Deno, Bun } = globalThis as Runtimes;
  const headers = { "content-type": "application/json" };
  const fetch = bareHandler(answer);
  if (Deno) return Promise.resolve(Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, fetch).addr.port);
  if (Bun) return Promise.resolve(Bun.serve({ port: 0, hostname: "127.0.0.1", fetch }).port);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, headers);
      res.end(answer);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
}

/**
 * Serves a toolkit handler on `Deno.serve` directly, without the adapter's relay (127.0.0.1, a free port): what
 * the relay costs is the difference. Each request carries its client's address, as through the adapter.
 *
 * @param handler The handler (`svc.handle`).
 * @returns The port.
 */
export function serveDirect(handler: (req: Request) => Response | Promise<Response>): number {
  const { Deno } = globalThis as Runtimes;
  if (!Deno) throw new Error("svc-direct is measured on Deno only (Bun and Node serve without a relay)");
  answerKeptByClone(true); // as the Deno adapter does
  const options = { port: 0, hostname: "127.0.0.1", onListen() {} };
  return Deno.serve(options, (req, info) => handler(withClientAddress(req, () => info.remoteAddr.hostname))).addr.port;
}
