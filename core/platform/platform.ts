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

/**
 * A worker thread started by {@linkcode startWorker}. It keeps the process alive only while told to
 * ({@linkcode PlatformWorker.keepAlive}): end it with a message.
 */
export interface PlatformWorker {
  /** Sends a message (structured clone) to the worker. */
  postMessage(message: unknown): void;
  /** Whether the process waits for the worker (while work it was sent is unanswered), or may exit while it runs. */
  keepAlive(on: boolean): void;
  /** Called with each message the worker sends. */
  onMessage(listener: (message: unknown) => void): void;
  /** Called once the worker has gone: it could not start, it threw, or it ended (`error` is `undefined` then). */
  onExit(listener: (error: unknown) => void): void;
}

/** The part of the host's `worker_threads` module (Node's; Deno and Bun provide it too) that workers use. */
interface WorkerThreads {
  Worker: new (url: URL) => {
    postMessage(message: unknown): void;
    on(event: "message" | "error" | "exit", listener: (value: unknown) => void): void;
    ref(): void;
    unref(): void;
  };
  parentPort: {
    postMessage(message: unknown): void;
    on(event: "message", listener: (value: unknown) => void): void;
    /** Missing on Deno, whose workers end with the Web worker's global `close()`. */
    close?(): void;
  } | null;
}

/**
 * The host's `worker_threads` module, where the runtime has one (Node, Deno and Bun all give it through
 * `process.getBuiltinModule`). Chosen over the Web `Worker` global, which Node lacks and which on Deno cannot be
 * unreferenced (a process with one open never exits by itself).
 */
function workerThreads(): WorkerThreads | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return host?.getBuiltinModule?.("worker_threads") as WorkerThreads | undefined;
}

/**
 * Starts a module in a worker thread of this process, unreferenced (the process may exit while it runs).
 *
 * @param url The module (`file:` URL; a `.ts` one on runtimes that run TypeScript).
 * @returns The worker, or `undefined` where the runtime has no worker threads. A module that cannot be loaded is
 *   reported later, to {@linkcode PlatformWorker.onExit}.
 */
export function startWorker(url: URL): PlatformWorker | undefined {
  const Worker = workerThreads()?.Worker;
  if (Worker === undefined) return undefined;
  const worker = new Worker(url);
  worker.unref();
  let exited: ((error: unknown) => void) | undefined;
  let gone = false;
  const exit = (error: unknown) => {
    if (gone) return;
    gone = true;
    exited?.(error);
  };
  worker.on("error", exit);
  worker.on("exit", () => exit(undefined));
  return {
    postMessage: (message) => worker.postMessage(message),
    keepAlive: (on) => on ? worker.ref() : worker.unref(),
    onMessage: (listener) => worker.on("message", listener),
    onExit: (listener) => exited = listener,
  };
}

/** What a module started by {@linkcode startWorker} sees of the thread that started it. */
export interface WorkerParent {
  /** Sends a message to the thread that started this worker. */
  postMessage(message: unknown): void;
  /** Called with each message from that thread. */
  onMessage(listener: (message: unknown) => void): void;
  /** Stops listening: the worker ends once its work is done. */
  close(): void;
}

/**
 * The thread that started this module with {@linkcode startWorker}.
 *
 * @returns It, or `undefined` outside such a worker.
 */
export function workerParent(): WorkerParent | undefined {
  const port = workerThreads()?.parentPort;
  if (port === null || port === undefined) return undefined;
  return {
    postMessage: (message) => port.postMessage(message),
    onMessage: (listener) => port.on("message", listener),
    close: () => port.close ? port.close() : (globalThis as { close?: () => void }).close?.(),
  };
}
