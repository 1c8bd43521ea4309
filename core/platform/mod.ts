/**
 * The platform's clock, randomness, `fetch` and `Response` class, behind one {@linkcode Runtime} object, and its
 * worker threads.
 *
 * @module
 */
export { PLATFORM, runtimeWith, startWorker, workerParent } from "./platform.ts";
export type { PlatformWorker, Runtime, WorkerParent } from "./platform.ts";
