/**
 * Imported first by the command line (`cloud/main.ts`): on Node older than 22,
 * prints `svc-cloud needs Node.js 22 or newer …` and exits with status 1 before
 * anything else runs.
 *
 * @module
 */
import { refuseUnsupportedRuntime } from "../../core/contract/supported_runtime.ts";

refuseUnsupportedRuntime("svc-cloud");
