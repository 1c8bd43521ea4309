/**
 * A request body as bytes, read under a size limit, and joining the chunks
 * of a stream: the one body reader of `/svc`, `/v1` and the dashboard's forms.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";

/**
 * Reads a request's (or a response's) body as bytes, refusing it as soon as it is over `limit`:
 * a declared `Content-Length` over it before reading anything, a stream
 * without one when the bytes read so far pass it (the rest is never read).
 * A body whose `Content-Length` is declared within the limit, and not encoded (no
 * `Content-Encoding`: what arrives is what was declared), is read in one call
 * (`arrayBuffer()`, one read of the runtime's buffered body rather than a
 * stream reader's chunks and turns); HTTP framing ends it at the declared length.
 *
 * @param req The request (or response).
 * @param limit The largest body accepted, in bytes.
 * @returns The body (empty when there is none).
 * @throws {SvcError} `PAYLOAD_TOO_LARGE` (413, `details.limit`, `Connection: close`).
 */
export async function readBody(
  req: Pick<Request, "headers" | "body" | "arrayBuffer">,
  limit: number,
): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (declared !== null && /^\d+$/.test(declared) && req.headers.get("content-encoding") === null) {
    // Not `req.body` first: on Deno that getter builds a stream the buffered read would then go through.
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit); // a body longer than declared never gets here whole
    return bytes;
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

function tooLarge(limit: number): SvcError {
  // `Connection: close`: the rest of the body is never read, so the connection cannot carry another request.
  return new SvcError("PAYLOAD_TOO_LARGE", `Request body exceeds ${limit} bytes`, {
    details: { limit },
    headers: { connection: "close" },
  });
}

/**
 * Joins chunks read from a stream into one array of `size` bytes (the first chunk itself when there is only one).
 *
 * @param chunks The chunks, in order.
 * @param size Their total length.
 * @returns The bytes.
 */
export function concatBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}
