/**
 * Where each request a client sends on an HTTP/1.1 connection begins, where its
 * head ends and where its body ends, read from the bytes as they pass (the
 * connection guard times every request by it). It reads only what framing
 * needs, line by line as the bytes arrive, keeping none of them (so a head of
 * any size is framed): the empty line that ends a head, `Content-Length`,
 * `Transfer-Encoding` and chunk sizes. The request line and every other
 * header's value are passed over to their line feed (`indexOf`), and a body of
 * known length is only counted. Empty lines between requests are
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
/** The two header names framing needs, lower-case, as bytes (a name is matched byte by byte as it arrives). */
const CONTENT_LENGTH = new TextEncoder().encode("content-length");
const TRANSFER_ENCODING = new TextEncoder().encode("transfer-encoding");

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
  /**
   * What of the current head line is being read: a header's name up to the colon, a Content-Length's digits, or
   * nothing up to the line feed (the request line, any other header's value: passed over without a look at each byte).
   */
  let field: "name" | "length" | "skip" = "skip";
  let nameAt = 0; // how many bytes of the current header's name came
  let maybeLength = true; // the name so far begins "content-length"
  let maybeTransfer = true; // the name so far begins "transfer-encoding"
  let length = 0; // the head's Content-Length (its last value)
  let chunked = false; // the head has a Transfer-Encoding
  let remaining = 0; // body or chunk bytes still to come

  /** Ends a line of a head or of the trailers: true when it was the empty line that ends them. */
  const endOfLine = (): boolean => {
    const last = !lineHasText;
    lineHasText = false;
    field = "name";
    nameAt = 0;
    maybeLength = true;
    maybeTransfer = true;
    return last;
  };
  const endRequest = () => {
    phase = "between";
    events.ended();
  };
  /** Reads one byte (not a line feed) of a header's name or of a Content-Length's value. */
  const readField = (byte: number) => {
    if (field === "length") {
      // Other characters (a list, a sign) make the head one the server refuses, then closes.
      if (byte >= 48 && byte <= 57) length = length * 10 + byte - 48;
    } else if (byte === COLON) {
      const isLength = maybeLength && nameAt === CONTENT_LENGTH.byteLength;
      field = isLength ? "length" : "skip";
      if (isLength) length = 0; // the last of several (the server refuses unequal ones)
      // Any transfer coding: the server refuses a request whose last one is not chunked, and closes.
      chunked ||= maybeTransfer && nameAt === TRANSFER_ENCODING.byteLength;
    } else {
      const lower = byte >= 65 && byte <= 90 ? byte + 32 : byte;
      maybeLength &&= CONTENT_LENGTH[nameAt] === lower;
      maybeTransfer &&= TRANSFER_ENCODING[nameAt] === lower;
      nameAt++;
      // Neither name: the rest of the line is passed over (once it has text, so that CR LF still ends the head).
      if (!maybeLength && !maybeTransfer && lineHasText) field = "skip";
    }
  };
  /** Ends a line of the head (its line feed came). */
  const endHeadLine = () => {
    if (endOfLine()) endHead();
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
          // The request line (its first byte is neither CR nor LF: it has text) is passed over.
          lineHasText = true;
          field = "skip";
          length = 0;
          chunked = false;
          events.started();
          continue; // the same byte, as part of the head
        case "head": {
          if (field === "skip") { // the line has text already (the request line, another header, a value not needed)
            const lf = bytes.indexOf(LF, at);
            if (lf === -1) {
              at = bytes.byteLength;
              continue;
            }
            at = lf + 1;
            endHeadLine();
            continue;
          }
          at++;
          if (byte === LF) endHeadLine();
          else {
            lineHasText ||= byte !== CR;
            readField(byte);
          }
          continue;
        }
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
          const digit = hexDigit(byte);
          if (digit >= 0) remaining = remaining * 16 + digit;
          else phase = byte === LF ? endChunkSize() : "chunk-line";
          continue;
        }
        case "chunk-line": // extensions up to the end of the size line
          at++;
          if (byte === LF) phase = endChunkSize();
          continue;
        case "chunk-end": // the line break after a chunk's data
          at++;
          if (byte === LF) {
            phase = "chunk-size";
            remaining = 0;
          }
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
    remaining = chunked ? 0 : length;
    if (chunked) phase = "chunk-size";
    else if (length > 0) phase = "body";
    else endRequest();
  }

  function endChunkSize(): Phase {
    if (remaining > 0) return "chunk-data";
    lineHasText = false; // the last chunk: trailer lines up to an empty one
    return "trailers";
  }
}

/** A hexadecimal digit's value, or -1. */
function hexDigit(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  const lower = byte | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}
