/**
 * The platform's clock, randomness, `fetch` and `Response` class, behind one {@linkcode Runtime} object.
 *
 * @module
 */
export { PLATFORM, runtimeWith } from "./platform.ts";
export type { Runtime } from "./platform.ts";
