/**
 * The request listener the Node adapter gives Node's server in place of srvx's own: the same steps (a bad
 * request-target is a 400, srvx's `NodeRequest` around the `IncomingMessage`, the answer sent, a failure a bare 500),
 * except that an answer built on srvx's `FastResponse` with a text body (every answer the toolkit builds on Node, see
 * core/http `textResponse`) goes out with one `end(text)`: srvx writes such a body with `write(text)` then `end()`,
 * which corks the socket until the next tick and writes it with `writev`, about 10 µs more a request (issue 41). The
 * head, the status line and the body bytes are the same; any other answer is sent by srvx.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeRequest, sendNodeResponse } from "srvx/node";

/** What srvx's `FastResponse` hands its server: the status, the head as name, value pairs, the body. */
interface NodeAnswer {
  status: number;
  statusText: string;
  headers: string[];
  body?: unknown;
}

/** srvx's `FastResponse` seen from its server. */
interface FastAnswer {
  _toNodeResponse(): NodeAnswer;
}

/**
 * Node's request listener for a fetch handler, sending text answers in one write.
 *
 * @example Serve a fetch handler on Node's own server
 * ```ts
 * import { createServer } from "node:http";
 * import { nodeListener } from "./_node_listener.ts";
 *
 * const server = createServer(nodeListener(() => new Response("hi")));
 * console.log(typeof server.listen);
 * ```
 *
 * @param fetch The handler.
 * @param waitUntil The server's `waitUntil`, given to each request as srvx gives it.
 * @returns The listener.
 */
export function nodeListener(
  fetch: (req: Request) => Response | Promise<Response>,
  waitUntil?: (promise: Promise<unknown>) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (nodeReq, nodeRes) => {
    const target = nodeReq.url;
    if (target && target[0] !== "/" && target !== "*" && !absoluteForm(target)) {
      nodeRes.statusCode = 400;
      nodeRes.end();
      return;
    }
    let answer: Response | Promise<Response>;
    try {
      const request = new NodeRequest({ req: nodeReq, res: nodeRes });
      request.waitUntil = waitUntil; // as srvx gives its requests: the server's close() waits for these
      answer = fetch(request as unknown as Request);
    } catch {
      return fail(nodeRes);
    }
    if (typeof (answer as Promise<Response>).then === "function") {
      (answer as Promise<Response>).then((res) => send(nodeRes, res), () => fail(nodeRes));
    } else send(nodeRes, answer as Response);
  };
}

function send(nodeRes: ServerResponse, answer: Response): void {
  try {
    // By shape, as srvx tells its own: `instanceof FastResponse` holds for every Response.
    if (typeof (answer as unknown as Partial<FastAnswer>)._toNodeResponse === "function") {
      const { status, statusText, headers, body } = (answer as unknown as FastAnswer)._toNodeResponse();
      if (body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array) {
        if (!nodeRes.headersSent) nodeRes.writeHead(status, reasonPhrase(statusText), headers);
        nodeRes.end(body ?? undefined);
        return;
      }
      // A stream (its text was read, or a FastResponse made elsewhere): srvx sends it as any other Response.
      answer = new Response(body as BodyInit, { status, statusText, headers: pairs(headers) });
    }
    sendNodeResponse(nodeRes, answer).catch(() => fail(nodeRes));
  } catch {
    fail(nodeRes);
  }
}

/** srvx's answer to a failed handler or send: a bare 500, or the connection closed once the head went out. */
function fail(nodeRes: ServerResponse): void {
  if (nodeRes.writableEnded) return;
  if (nodeRes.headersSent) nodeRes.destroy();
  else {
    nodeRes.statusCode = 500;
    if (nodeRes.req?.httpVersion !== "2.0") nodeRes.statusMessage = "";
    nodeRes.end();
  }
}

/** An absolute-form request-target srvx accepts: an http(s) URL with a host. */
function absoluteForm(target: string): boolean {
  if (!URL.canParse(target)) return false;
  const url = new URL(target);
  return (url.protocol === "http:" || url.protocol === "https:") && url.host !== "";
}

/** The reason phrase as srvx writes it: characters a status line cannot carry dropped. */
function reasonPhrase(statusText: string): string {
  return statusText ? statusText.replace(/[^\t\u0020-\u007E\u0080-\u00FF]/g, "") : statusText;
}

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}
