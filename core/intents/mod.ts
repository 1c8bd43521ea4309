/**
 * The app's intents: defining and compiling them, and running one for an agent key.
 *
 * @module
 */
export { createIntentRunner, PendingApproval } from "./intent_runner.ts";
export type { AllowedEntry, FallbackHandler, IntentRunner } from "./intent_runner.ts";
export { compileIntents, DEFAULT_APPROVAL_TTL_MINUTES, defineIntent, MAX_APPROVAL_TTL_MINUTES } from "./intents.ts";
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
