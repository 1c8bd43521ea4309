// The command-line arguments of a bench script, on Deno, Bun and Node alike.
import process from "node:process";

/** The arguments after the script. */
export function argv(): string[] {
  return process.argv.slice(2);
}
