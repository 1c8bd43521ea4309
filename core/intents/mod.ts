/**
 * The app's intents: defining and compiling them, and running one for an agent key.
 *
 * @module
 */
export { createIntentRunner, PendingApproval } from "./intent_runner.ts";
export type { AllowedEntry, FallbackHandler, IntentRunner } from "./intent_runner.ts";
export { compileIntents, defineIntent } from "./intents.ts";
export type {
  ApprovalRule,
  CompiledIntent,
  InferInput,
  InferOutput,
  Intent,
  IntentRegistry,
  MaybePromise,
  Schema,
} from "./intents.ts";
