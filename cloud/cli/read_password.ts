/**
 * Reading a password from stdin: the first line, without its line ending.
 * Never from the arguments, which other users of the machine can see.
 *
 * @module
 */
import process from "node:process";

/**
 * Reads the first line of stdin.
 *
 * @returns The line.
 */
export async function readPasswordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("Password (then Enter): ");
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0];
}
