/**
 * Logging for both sides: the error logger's type, the default logger, and the redacting wrapper
 * that keeps secret-shaped tokens out of every log line.
 *
 * @module
 */
export { defaultLogger } from "./error_logger.ts";
export type { ErrorLogger } from "./error_logger.ts";
export { isJsonLogger, jsonLogger, requestLogFields } from "./json_logger.ts";
export { expectedFailure, logLine, reconnectedAfter } from "./log_line.ts";
export { REDACT_DEPTH, redactingLogger } from "./redacting_logger.ts";
