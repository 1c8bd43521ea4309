/**
 * Logging for both sides: the error logger's type, the default logger, and the redacting wrapper
 * that keeps secret-shaped tokens out of every log line.
 *
 * @module
 */
export * from "./error_logger.ts";
export * from "./json_logger.ts";
export * from "./log_line.ts";
export * from "./redacting_logger.ts";
