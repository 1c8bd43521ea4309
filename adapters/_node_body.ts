/**
 * A faster `arrayBuffer()` for the Requests srvx makes on Node. srvx reads
 * `arrayBuffer()` by building a native Request around a Web stream over Node's
 * `IncomingMessage`; the toolkit's body reader (core/http `readBody`) calls
 * `arrayBuffer()` for a body of declared length, so that path cost a stream and
 * a second Request per request. Here a body with a `Content-Length` is read
 * from the `IncomingMessage`'s own events instead (Node's parser ends it at the
 * declared length); a chunked body keeps srvx's stream.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";

/** What srvx's Request carries on Node: the `IncomingMessage` it was made from. */
interface NodeBacked {
  runtime?: { node?: { req?: IncomingMessage } };
}

/**
 * Gives a srvx Request of declared length an `arrayBuffer()` that reads Node's `IncomingMessage` directly.
 *
 * @example Serve with srvx, reading bodies directly
 * ```ts
 * import { withBufferedBody } from "./_node_body.ts";
 *
 * const handler = (req: Request) => req.arrayBuffer().then((b) => new Response(`${b.byteLength} bytes`));
 * const fetch = (req: Request) => handler(withBufferedBody(req));
 * console.log(typeof fetch);
 * ```
 *
 * @param req The request srvx made (any other Request is returned as it is).
 * @returns The same request.
 */
export function withBufferedBody(req: Request): Request {
  const node = (req as NodeBacked).runtime?.node?.req;
  if (node === undefined || node.headers["content-length"] === undefined) return req;
  let used = false;
  Object.defineProperty(req, "arrayBuffer", {
    configurable: true,
    value(): Promise<ArrayBuffer> {
      if (used || req.bodyUsed) return Promise.reject(new TypeError("Body is unusable: the body has been read"));
      used = true;
      return readIncoming(node);
    },
  });
  return req;
}

function readIncoming(node: IncomingMessage): Promise<ArrayBuffer> {
  if (node.readableEnded || node.destroyed) {
    return Promise.reject(new TypeError("Body is unusable: the body has been read"));
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const done = () => {
      node.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const onData = (chunk: Uint8Array) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    };
    const onEnd = () => {
      done();
      const body = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        body.set(chunk, at);
        at += chunk.byteLength;
      }
      resolve(body.buffer);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(new DOMException("The client closed the connection before its body ended", "AbortError"));
    };
    node.on("data", onData).once("end", onEnd).once("error", onError).once("close", onClose);
  });
}
