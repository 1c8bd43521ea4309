/**
 * The runtimes the package runs on. Imported first by every entry point (`mod.ts`, `cloud/mod.ts`, the
 * adapters, the command line): on Node older than 22 it prints one line naming the version needed and
 * exits with status 1, before anything else of the package runs.
 *
 * @module
 */
import "./require_supported_runtime.ts";
export { MIN_NODE_MAJOR, unsupportedRuntime } from "./supported_runtime.ts";
