/**
 * What the command line prints, made safe for a terminal: control characters
 * (line breaks, carriage returns, ESC and the other C0 and C1 codes, DEL) in
 * stored values are shown escaped, so a value can neither forge a line nor
 * drive the terminal. Every printer of the command line goes through it.
 *
 * @module
 */

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// deno-lint-ignore no-control-regex
const CONTROL_BUT_LINE_BREAK = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(c: string): string {
  return NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/**
 * One value, every control character escaped (a line break becomes `\n`, ESC `\x1b`).
 *
 * @param value A stored value (an actor, a name, an email).
 * @returns It, printable on one line.
 *
 * @example A forged line stays on its line
 * ```ts
 * import { printable } from "./terminal_text.ts";
 * printable("a\nb\u001b[2J"); // "a\\nb\\x1b[2J"
 * ```
 */
export function printable(value: string): string {
  return value.replace(CONTROL, escaped);
}

/**
 * A whole text to print: its own line breaks kept, every other control character escaped.
 *
 * @param text What a command prints.
 * @returns It, safe for a terminal.
 *
 * @example
 * ```ts
 * import { printableText } from "./terminal_text.ts";
 * printableText("one\ntwo\u001b[31m"); // "one\ntwo\\x1b[31m"
 * ```
 */
export function printableText(text: string): string {
  return text.replace(CONTROL_BUT_LINE_BREAK, escaped);
}
