/**
 * The platform's clock, randomness, `fetch` and `Response` class, behind one {@linkcode Runtime} object.
 *
 * @module
 */
export { PLATFORM, type ResponseClass, type Runtime, runtimeWith } from "./platform.ts";
