/**
 * Reading a password from stdin: the first line, without its line ending.
 * Never from the arguments, which other users of the machine can see; on a
 * terminal, never echoed.
 *
 * @module
 */
import process from "node:process";
import { readHiddenLine } from "./hidden_input.ts";

/**
 * Reads the first line of stdin.
 *
 * @returns The line.
 */
export async function readPasswordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    // On a terminal the password is typed without echo; from a pipe it is read as it is.
    process.stderr.write("Password (then Enter): ");
    const line = await readHiddenLine(process.stdin);
    process.stderr.write("\n");
    return line;
  }
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0];
}
