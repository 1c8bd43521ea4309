/**
 * The error model of both sides: one `SvcError` with a code from one union, the status of each code, and
 * recognition by shape. A room of its own with no dependency, so the agent client loads it in a browser as it is.
 *
 * @module
 */
export { ERROR_STATUS, isSvcError, SvcError } from "./errors.ts";
export type { ErrorCode, SvcErrorOptions } from "./errors.ts";
