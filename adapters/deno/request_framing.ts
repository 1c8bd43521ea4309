/**
 * Where each request a client sends on an HTTP/1.1 connection begins, where its
 * head ends and where its body ends, read from the bytes as they pass (the
 * connection guard times every request by it). It reads only what framing
 * needs, line by line as the bytes arrive, keeping none of them (so a head of
 * any size is framed): the empty line that ends a head, `Content-Length`,
 * `Transfer-Encoding` and chunk sizes. Empty lines between requests are
 * ignored (RFC 9112 §2.2: some clients end a body with CRLF). The server behind
 * still parses every request and refuses what is malformed.
 *
 * @module
 */

/** What {@linkcode requestFraming} reports, as the bytes arrive. */
export interface RequestEvents {
  /** The first byte of a request arrived. */
  started(): void;
  /** The request's head ended; its body, if any, follows. */
  headEnded(): void;
  /** The request ended, body included. */
  ended(): void;
}

const CR = 13;
const LF = 10;
const COLON = 58;
const ZERO = 48;
const NAME_LIMIT = "transfer-encoding".length;

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
  let inFields = false; // past the request line
  let name = ""; // the current header line's name, lower-cased, up to NAME_LIMIT + 1 characters
  let field: "name" | "length" | "other" = "name"; // what of the current header line is being read
  let length = 0; // the head's Content-Length (its last value)
  let chunked = false; // the head has a Transfer-Encoding
  let remaining = 0; // body or chunk bytes still to come

  /** Ends a line of a head or of the trailers: true when it was the empty line that ends them. */
  const endOfLine = (): boolean => {
    const last = !lineHasText;
    [lineHasText, name, field] = [false, "", "name"];
    return last;
  };
  const endRequest = () => {
    phase = "between";
    events.ended();
  };
  /** Reads one byte (not a line feed) of a header line: its name up to the colon, a Content-Length's digits. */
  const readField = (byte: number) => {
    if (field === "length") {
      // Other characters (a list, a sign) make the head one the server refuses, then closes.
      if (byte >= ZERO && byte <= ZERO + 9) length = length * 10 + byte - ZERO;
    } else if (field === "name" && byte === COLON) {
      field = name === "content-length" ? "length" : "other";
      if (field === "length") length = 0; // the last of several (the server refuses unequal ones)
      // Any transfer coding: the server refuses a request whose last one is not chunked, and closes.
      chunked ||= name === "transfer-encoding";
    } else if (field === "name" && name.length <= NAME_LIMIT) name += String.fromCharCode(byte).toLowerCase();
  };

  return (bytes) => {
    for (let at = 0; at < bytes.byteLength;) {
      const byte = bytes[at];
      switch (phase) {
        case "between":
          if (byte === CR || byte === LF) { // an empty line before a request
            at++;
            continue;
          }
          phase = "head";
          [lineHasText, inFields, name, field, length, chunked] = [false, false, "", "name", 0, false];
          events.started();
          continue; // the same byte, as part of the head
        case "head":
          at++;
          if (byte !== LF) {
            lineHasText ||= byte !== CR;
            if (inFields) readField(byte);
          } else if (endOfLine()) endHead();
          else inFields = true;
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
  };

  function endHead(): void {
    events.headEnded();
    if (chunked) [phase, remaining] = ["chunk-size", 0];
    else if (length > 0) [phase, remaining] = ["body", length];
    else endRequest();
  }

  function endChunkSize(): Phase {
    if (remaining > 0) return "chunk-data";
    lineHasText = false; // the last chunk: trailer lines up to an empty one
    return "trailers";
  }
}
