/**
 * The runtimes the toolkit supports: Deno, Bun and Node 22 or newer. Older Node
 * lacks what the toolkit uses (`Promise.withResolvers`, among others) and would
 * fail later with an error that does not say why; this check refuses it at once,
 * with one line. It reads only globals, so it runs unchanged on every runtime.
 *
 * @module
 */

/** The oldest Node major version supported. */
export const MIN_NODE_MAJOR = 22;

/** The globals the check reads: Deno and Bun also report a Node version in `process.versions.node`. */
export interface RuntimeGlobals {
  /** Present on Deno. */
  Deno?: unknown;
  /** Present on Bun. */
  Bun?: unknown;
  /** Node's process, if any. */
  process?: { versions?: { node?: string } };
}

/**
 * Why this runtime cannot run the toolkit, as one line, or `null` when it can.
 *
 * @example Node 20 is refused
 * ```ts
 * import { unsupportedRuntime } from "./supported_runtime.ts";
 *
 * console.log(unsupportedRuntime("svc-cloud", { process: { versions: { node: "20.20.2" } } }));
 * // svc-cloud needs Node.js 22 or newer (this is Node.js 20.20.2): install Node.js 22+, or run it with Deno or Bun.
 * ```
 *
 * @param what The name the line starts with (the package, or the command).
 * @param globals The runtime's globals (default `globalThis`).
 * @returns The line, or `null`.
 */
export function unsupportedRuntime(
  what: string,
  globals: RuntimeGlobals = globalThis as RuntimeGlobals,
): string | null {
  if (globals.Deno !== undefined || globals.Bun !== undefined) return null;
  const node = globals.process?.versions?.node;
  if (typeof node !== "string") return null;
  const major = Number(node.split(".")[0]);
  if (!(major < MIN_NODE_MAJOR)) return null;
  return `${what} needs Node.js ${MIN_NODE_MAJOR} or newer (this is Node.js ${node}): install Node.js ` +
    `${MIN_NODE_MAJOR}+, or run it with Deno or Bun.`;
}

/**
 * Refuses an unsupported runtime at once: prints the one line of {@linkcode unsupportedRuntime} on stderr and
 * exits with status 1. Does nothing on a supported runtime.
 *
 * @example First thing in an entry point
 * ```ts
 * import { refuseUnsupportedRuntime } from "./supported_runtime.ts";
 *
 * refuseUnsupportedRuntime("@svc/agent-access");
 * ```
 *
 * @param what The name the line starts with.
 */
export function refuseUnsupportedRuntime(what: string): void {
  const line = unsupportedRuntime(what);
  if (line === null) return;
  console.error(line);
  (globalThis as { process?: { exit(code: number): never } }).process?.exit(1);
  throw new Error(line); // a runtime that cannot exit still stops here
}
