/**
 * One clear error for a port that cannot be bound, whatever the runtime.
 *
 * @module
 */

/**
 * Turns a runtime's "address in use" failure into an error whose message is
 * one line a person can act on; any other error is returned as it is.
 *
 * @example Translate what Node threw
 * ```ts
 * import { listenError } from "./_listen_error.ts";
 *
 * const error = listenError(Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" }), "127.0.0.1", 8787);
 * console.log((error as Error).message); // Port 8787 on 127.0.0.1 is already in use: stop the other server or …
 * ```
 *
 * @param error What the runtime threw.
 * @param hostname The address asked for.
 * @param port The port asked for.
 * @returns The error to throw.
 */
export function listenError(error: unknown, hostname: string, port: number): unknown {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (code !== "EADDRINUSE" && name !== "AddrInUse") return error;
  return Object.assign(
    new Error(`Port ${port} on ${hostname} is already in use: stop the other server or choose another port`, {
      cause: error,
    }),
    { code: "EADDRINUSE" },
  );
}
