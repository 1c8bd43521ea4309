/**
 * Where each request a client sends on an HTTP/1.1 connection begins, where its
 * head ends and where its body ends, read from the bytes as they pass (the
 * connection guard times every request by it). It reads only what framing
 * needs: the empty line that ends a head, `Content-Length`,
 * `Transfer-Encoding` and chunk sizes. The server behind still parses every
 * request and refuses what is malformed.
 *
 * @module
 */
import { concatBytes } from "./bytes.ts";

/** What {@linkcode requestFraming} reports, as the bytes arrive. */
export interface RequestEvents {
  /** The first byte of a request arrived. */
  started(): void;
  /** The request's head ended (`head`: its first {@linkcode MAX_HEAD_BYTES} bytes); its body, if any, follows. */
  headEnded(head: Uint8Array): void;
  /** The request ended, body included. */
  ended(): void;
}

/** The longest part of a request head kept for reading its framing headers. */
export const MAX_HEAD_BYTES = 64 * 1024;

const CR = 13;
const LF = 10;
const decoder = new TextDecoder();

type Phase = "between" | "head" | "body" | "chunk-size" | "chunk-line" | "chunk-data" | "chunk-end" | "trailers";

/**
 * Follows the requests of one connection.
 *
 * @example Two requests in one piece
 * ```ts
 * import { requestFraming } from "./request_framing.ts";
 *
 * const seen: string[] = [];
 * const feed = requestFraming({
 *   started: () => seen.push("started"),
 *   headEnded: () => seen.push("head"),
 *   ended: () => seen.push("ended"),
 * });
 * feed(new TextEncoder().encode("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhiGET / HTTP/1.1\r\n\r\n"));
 * console.log(seen.join(" ")); // started head ended started head ended
 * ```
 *
 * @param events Called as requests start, their heads end and they end.
 * @returns Feeds the next bytes the client sent (they are read at once, not kept).
 */
export function requestFraming(events: RequestEvents): (bytes: Uint8Array) => void {
  let phase: Phase = "between";
  let lineHasText = false; // the current line of a head or of the trailers holds more than CR
  let sawLine = false; // the head has a line of text (empty lines before the request line are skipped)
  let remaining = 0; // body or chunk bytes still to come
  let head: Uint8Array[] = [];
  let headSize = 0;

  /** Ends a line of a head or of the trailers: true when it was the empty line that ends them. */
  const endOfLine = (): boolean => {
    const last = !lineHasText && sawLine;
    sawLine ||= lineHasText;
    lineHasText = false;
    return last;
  };
  const endRequest = () => {
    phase = "between";
    events.ended();
  };

  return (bytes) => {
    let headFrom = phase === "head" ? 0 : -1;
    const keepHead = (to: number) => {
      if (headFrom < 0 || headSize >= MAX_HEAD_BYTES) return;
      const part = bytes.slice(headFrom, Math.min(to, headFrom + MAX_HEAD_BYTES - headSize));
      head.push(part);
      headSize += part.byteLength;
    };
    for (let at = 0; at < bytes.byteLength;) {
      const byte = bytes[at];
      switch (phase) {
        case "between":
          phase = "head";
          [lineHasText, sawLine, head, headSize, headFrom] = [false, false, [], 0, at];
          events.started();
          continue; // the same byte, as part of the head
        case "head":
          at++;
          if (byte !== LF) lineHasText ||= byte !== CR;
          else if (endOfLine()) {
            keepHead(at);
            headFrom = -1;
            endHead();
          }
          continue;
        case "body":
        case "chunk-data": {
          const take = Math.min(remaining, bytes.byteLength - at);
          at += take;
          remaining -= take;
          if (remaining > 0) continue;
          if (phase === "body") endRequest();
          else phase = "chunk-end";
          continue;
        }
        case "chunk-size": {
          at++;
          const digit = parseInt(String.fromCharCode(byte), 16);
          if (!Number.isNaN(digit)) remaining = remaining * 16 + digit;
          else phase = byte === LF ? endChunkSize() : "chunk-line";
          continue;
        }
        case "chunk-line": // extensions up to the end of the size line
          at++;
          if (byte === LF) phase = endChunkSize();
          continue;
        case "chunk-end": // the line break after a chunk's data
          at++;
          if (byte === LF) [phase, remaining] = ["chunk-size", 0];
          continue;
        case "trailers":
          at++;
          if (byte !== LF) lineHasText ||= byte !== CR;
          else if (endOfLine()) endRequest();
          continue;
      }
    }
    keepHead(bytes.byteLength);
  };

  function endHead(): void {
    const whole = concatBytes(head, headSize);
    events.headEnded(whole);
    const length = bodyLength(decoder.decode(whole));
    if (length === "chunked") [phase, remaining] = ["chunk-size", 0];
    else if (length > 0) [phase, remaining] = ["body", length];
    else endRequest();
  }

  function endChunkSize(): Phase {
    if (remaining > 0) return "chunk-data";
    [lineHasText, sawLine] = [false, true]; // the last chunk: trailer lines up to an empty one
    return "trailers";
  }
}

/** How a request's body is framed, from its head: a length (0 without one) or chunked. */
function bodyLength(head: string): number | "chunked" {
  let length = 0;
  for (const line of head.split("\n").slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    // Any transfer coding: the server refuses a request whose last one is not chunked, and closes.
    if (name === "transfer-encoding") return "chunked";
    if (name === "content-length") length = Number(line.slice(colon + 1).trim()) || 0;
  }
  return length;
}
