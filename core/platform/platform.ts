/**
 * The one file that reads the platform: the wall clock, the monotonic clock, randomness, `fetch` and the
 * `Response` class. Library code takes these from a {@linkcode Runtime} passed down from `createSvc` /
 * `createCloud` (or from a `now` already at hand); {@linkcode PLATFORM} is the default they fall back to.
 * `tests/architecture/platform_reads_test.ts` fails on a direct read anywhere else in `core/` and `cloud/`.
 *
 * @module
 */

/** A class whose instances are `Response`s. */
export type ResponseClass = new (body: string, init: ResponseInit) => Response;

/** What library code reads from the platform, in one object a caller can replace in part. */
export interface Runtime {
  /** The wall clock, in milliseconds since the epoch. */
  now(): number;
  /** A monotonic clock, in milliseconds from an arbitrary origin (for durations only). */
  elapsed(): number;
  /** A number in [0, 1), for jitter only (never for secrets). */
  random(): number;
  /** `length` cryptographically random bytes. */
  randomBytes(length: number): Uint8Array<ArrayBuffer>;
  /** A random version-4 UUID. */
  randomUUID(): string;
  /** The HTTP client. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The class of the answers the toolkit builds from text (an adapter may name a lighter one). */
  Response: ResponseClass;
}

/** The platform's own clock, randomness, `fetch` and `Response`. */
export const PLATFORM: Readonly<Runtime> = Object.freeze({
  now: () => Date.now(),
  elapsed: () => performance.now(),
  random: () => Math.random(),
  randomBytes: (length: number) => crypto.getRandomValues(new Uint8Array(length)),
  randomUUID: () => crypto.randomUUID(),
  fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init),
  Response,
});

/**
 * The platform's runtime with some parts replaced (a test's clock, a server's `Response` class).
 *
 * @example A runtime with a fixed clock
 * ```ts
 * import { runtimeWith } from "./platform.ts";
 *
 * const runtime = runtimeWith({ now: () => 0 });
 * console.log(new Date(runtime.now()).toISOString()); // 1970-01-01T00:00:00.000Z
 * ```
 *
 * @param parts The parts to replace; a part left out (or `undefined`) is the platform's.
 * @returns The runtime.
 */
export function runtimeWith(parts: Partial<Runtime> = {}): Runtime {
  const runtime: Runtime = { ...PLATFORM };
  for (const [name, part] of Object.entries(parts)) {
    if (part !== undefined) (runtime as unknown as Record<string, unknown>)[name] = part;
  }
  return runtime;
}
