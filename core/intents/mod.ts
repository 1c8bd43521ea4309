/**
 * The app's intents: defining and compiling them, and running one for an agent key.
 *
 * @module
 */
export * from "./intent_runner.ts";
export * from "./intents.ts";
