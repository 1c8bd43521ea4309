/**
 * Placeholder until createSvc lands in this commit series.
 * @module
 */
export { isSvcError, SvcError } from "./core/errors.ts";
export type { ErrorCode, SvcErrorOptions } from "./core/errors.ts";
