/**
 * Reading a line from a terminal without echoing it: raw mode on while the
 * line is typed (so the terminal shows nothing), off again after, whatever
 * happens. Backspace erases, Enter ends, Ctrl-C and Ctrl-D abandon.
 *
 * @module
 */

/** A terminal input: a readable stream that can be put in raw mode. */
export interface TerminalInput extends AsyncIterable<unknown> {
  /** Turns the terminal's line editing and echo off (`true`) or on. */
  setRawMode(raw: boolean): unknown;
}

/**
 * Reads one line typed on a terminal, never echoed.
 *
 * @param input The terminal (`process.stdin` when it is a TTY).
 * @returns The line, without its line ending.
 * @throws {Error} When the typing is abandoned (Ctrl-C, Ctrl-D, end of input).
 *
 * @example
 * ```ts ignore
 * import process from "node:process";
 * import { readHiddenLine } from "./hidden_input.ts";
 * const password = await readHiddenLine(process.stdin);
 * ```
 */
export async function readHiddenLine(input: TerminalInput): Promise<string> {
  input.setRawMode(true);
  try {
    let line = "";
    for await (const chunk of input) {
      for (const c of String(chunk)) {
        if (c === "\r" || c === "\n") return line;
        if (c === "\u0003" || c === "\u0004") throw new Error("Cancelled: no password read.");
        if (c === "\u007f" || c === "\b") line = line.slice(0, -1);
        else line += c;
      }
    }
    throw new Error("The input ended before a password was read.");
  } finally {
    input.setRawMode(false);
  }
}
