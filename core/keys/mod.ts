/**
 * Agent keys for both sides: the key service the routes use.
 *
 * @module
 */
export * from "./key_service.ts";
