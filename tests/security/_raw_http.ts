// A raw HTTP/1.1 client on node:net, for what fetch will not send: bodies
// that lie about their Content-Length, duplicate keys as written, and huge
// chunked bodies sent under backpressure while counting what got through.
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  /** The status, or 0 when the server closed without answering. */
  status: number;
  /** Everything the server sent. */
  text: string;
  /** The JSON body, when there is one. */
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Sends `head` and `body` as written and reads until the server answers and goes quiet or closes. */
export function rawRequest(port: number, head: string, body = "", quietMs = 300): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let timer: ReturnType<typeof setTimeout>;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(text));
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    };
    socket.on("data", (d) => {
      text += d;
      quiet();
    });
    socket.on("error", done);
    socket.on("close", done);
    socket.on("connect", () => {
      socket.write(head + "\r\n\r\n" + body);
      quiet();
    });
  });
}

/**
 * Streams a chunked body of up to `total` bytes, waiting for the socket to drain
 * between chunks, until the server answers. Resolves with the answer and how
 * many body bytes the client managed to hand to the socket.
 */
export function streamHugeBody(
  port: number,
  path: string,
  headers: Record<string, string>,
  total: number,
  deadlineMs = 10_000,
): Promise<{ answer: RawAnswer; sent: number }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(64 * 1024, 0x20); // spaces: valid JSON whitespace, never a complete value
    let text = "";
    let sent = 0;
    let answered = false;
    const finish = () => {
      if (answered) return;
      answered = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve({ answer: parse(text), sent });
    };
    const deadline = setTimeout(finish, deadlineMs);
    socket.on("data", (d) => {
      text += d;
      if (/\r\n\r\n/.test(text)) setTimeout(finish, 50);
    });
    socket.on("error", finish);
    socket.on("close", finish);
    socket.on("connect", async () => {
      const lines = Object.entries({ host: "127.0.0.1", "transfer-encoding": "chunked", ...headers })
        .map(([k, v]) => `${k}: ${v}`);
      socket.write(`POST ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`);
      while (sent < total && !answered && !socket.destroyed) {
        const ok = socket.write(`${chunk.length.toString(16)}\r\n`) && socket.write(chunk) && socket.write("\r\n");
        sent += chunk.length;
        if (!ok) await new Promise<void>((r) => socket.once("drain", r).once("close", r));
      }
    });
  });
}

function parse(text: string): RawAnswer {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const at = text.indexOf("\r\n\r\n");
  const head = at === -1 ? "" : text.slice(0, at);
  let rest = at === -1 ? "" : text.slice(at + 4);
  const length = /content-length: (\d+)/i.exec(head)?.[1];
  if (/transfer-encoding: chunked/i.test(head)) rest = unchunk(rest);
  else if (length !== undefined) rest = rest.slice(0, Number(length)); // a runtime may answer the rest of the stream too
  let body: unknown = null;
  try {
    body = JSON.parse(rest);
  } catch {
    // not JSON (a runtime's own answer, or nothing)
  }
  return { status, text, body };
}

function unchunk(text: string): string {
  let out = "";
  for (let at = 0; at < text.length;) {
    const eol = text.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = parseInt(text.slice(at, eol), 16);
    if (!(size > 0)) break;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
  return out;
}
