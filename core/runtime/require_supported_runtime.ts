/**
 * Imported first by the package's entry points (`mod.ts`, the adapters): on Node
 * older than 22, prints one line naming the version needed and exits with status 1,
 * before anything else of the package runs.
 *
 * @module
 */
import { refuseUnsupportedRuntime } from "./supported_runtime.ts";
import { PACKAGE_NAME } from "../contract/mod.ts";

refuseUnsupportedRuntime(PACKAGE_NAME);
