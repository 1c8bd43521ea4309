/**
 * In-memory caching for both sides: one bounded LRU map with an optional time to live and an injected clock.
 *
 * @module
 */
export { BoundedMap } from "./bounded_map.ts";
