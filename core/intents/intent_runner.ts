/**
 * The chain every agent call goes through, whatever the transport (`/svc/agent/run`,
 * MCP): intent known, scopes, payload schema, handler, result schema. The key
 * has been checked before. Each refusal is recorded as a violation.
 *
 * @module
 */
import { isSvcError, SvcError } from "../errors/mod.ts";
import type { CompiledIntent, ManifestEntry } from "./intents.ts";
import type { VerifiedKey } from "../keys/mod.ts";
import { type Issue, toIssues } from "../http/mod.ts";
import { newViolation, type Violation, type ViolationKind } from "../contract/mod.ts";
import { forbiddenScopeErrors } from "./forbidden_scope_errors.ts";
import { unknownIntentError } from "./intent_suggestion.ts";

/** Runs an intent that is not in the registry: `(intent, payload, user) => result`. */
export type FallbackHandler = (intent: string, payload: Record<string, unknown>, user: string) => unknown;

/** What the runner needs from `createSvc`. */
export interface IntentRunnerOptions {
  /** The compiled registry. */
  intents: ReadonlyMap<string, CompiledIntent>;
  /** Refuse intents outside the registry even when a fallback exists. */
  strictIntents: boolean;
  /** Check each result against the intent's output schema. */
  validateResults: boolean;
  /** The fallback for intents outside the registry. */
  onAgentIntent?: FallbackHandler;
  /** Records a refusal (never awaited by the response). */
  recordViolation: (violation: Violation) => void;
  /**
   * Counts a refusal as a repeat of one already recorded, without building its violation
   * (`false`: record it in full). Without it every refusal is built and recorded.
   */
  repeatViolation?: (keyId: string, kind: ViolationKind, intent: string | null) => boolean;
  /**
   * Stores a run that waits for its user's decision (the intent's `approval` says so), with its validated payload:
   * the run resolves to what it answers, and the handler does not run. Without it, `approval` is ignored.
   */
  requestApproval?: (key: VerifiedKey, intent: CompiledIntent, payload: unknown) => Promise<PendingApproval>;
}

/** What a run resolves to, instead of the handler's result, when it waits for its user's decision. */
export class PendingApproval {
  /** `apr_` + ULID. */
  readonly approvalId: string;
  /** When it expires if nobody decides (ISO 8601). */
  readonly expiresAt: string;
  /** Where the user decides (relative to the app when the SDK renders the page). */
  readonly decideUrl: string;
  /**
   * @param approvalId `apr_` + ULID.
   * @param expiresAt When it expires if nobody decides (ISO 8601).
   * @param decideUrl Where the user decides.
   */
  constructor(approvalId: string, expiresAt: string, decideUrl: string) {
    this.approvalId = approvalId;
    this.expiresAt = expiresAt;
    this.decideUrl = decideUrl;
  }
}

/** A manifest entry with whether the calling key may run it. */
export type AllowedEntry = ManifestEntry & { allowed: boolean };

/** Lists and runs intents for a verified key. */
export interface IntentRunner {
  /** Every intent, with `allowed` for this key. */
  manifestFor(key: VerifiedKey): AllowedEntry[];
  /**
   * Runs an intent. A refusal (unknown intent, missing scope, invalid payload) is the contract's SvcError thrown
   * synchronously, before any promise exists: a promise rejected before anything awaits it costs each runtime a
   * call into its unhandled-rejection tracking, per refused request. The handler's failure rejects the promise.
   * Call it as `await runner.run(...)` inside `try`, which catches both.
   */
  run(key: VerifiedKey, intent: string, payload: unknown): Promise<unknown>;
  /**
   * Runs an intent as {@linkcode IntentRunner.run} does, but returns a refusal instead of throwing it: the contract's
   * SvcError (recorded as a violation, like any refusal), or the run's promise. A refused request thus throws
   * nothing here (a throw costs each runtime its unwinding, and each `await` it crosses a rejection).
   */
  attempt(key: VerifiedKey, intent: string, payload: unknown): Promise<unknown> | SvcError;
  /**
   * Runs an approved intent's handler with its stored payload, for its user; the result is checked as any run's.
   * Its failure rejects with the contract's SvcError.
   */
  runApproved(intent: string, payload: unknown, user: string): Promise<unknown>;
}

/**
 * Builds the runner.
 *
 * @param options Registry, flags, fallback and violation sink.
 * @returns The runner.
 */
export function createIntentRunner(options: IntentRunnerOptions): IntentRunner {
  const { intents, validateResults, recordViolation, repeatViolation } = options;
  const manifest = [...intents.values()].map((i) => i.manifest);
  const fallback = options.strictIntents ? undefined : options.onAgentIntent;
  const forbidden = forbiddenScopeErrors();

  /** Records a refusal as a violation and returns it. */
  function refused(key: VerifiedKey, kind: ViolationKind, intent: string, error: SvcError): SvcError {
    if (repeatViolation?.(key.id, kind, intent)) return error; // counted: nothing built, nothing written
    recordViolation(newViolation(kind, {
      keyId: key.id,
      userId: key.userId,
      intent,
      message: error.message,
      metadata: error.details === undefined ? {} : { details: error.details },
    }));
    return error;
  }

  /** The chain: intent known → scopes → payload schema → handler (or the approval it waits for). */
  function attempt(key: VerifiedKey, name: string, rawPayload: unknown): Promise<unknown> | SvcError {
    const intent = intents.get(name);
    if (intent === undefined && fallback === undefined) {
      return refused(key, "UNKNOWN_INTENT", name, unknownIntentError(name, intents.keys()));
    }
    if (intent !== undefined && !holdsAll(key.scopes, intent.requiredScopes)) {
      return refused(key, "FORBIDDEN_SCOPE", name, forbidden(name, intent.requiredScopes, key.scopes));
    }
    const payload = rawPayload === undefined ? {} : rawPayload;
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      return refused(
        key,
        "INTENT_VALIDATION_ERROR",
        name,
        invalidPayload([{ path: "", message: "Payload must be an object" }]),
      );
    }
    if (intent === undefined) {
      const clean = withoutProtoKeys(payload) as Record<string, unknown>;
      return runHandler(() => fallback!(name, clean, key.userId));
    }
    const parsed = intent.input.safeParse(payload);
    if (!parsed.success) {
      return refused(key, "INTENT_VALIDATION_ERROR", name, invalidPayload(toIssues(parsed.error.issues)));
    }
    if (intent.approval !== null && options.requestApproval !== undefined) {
      return approvalOrRun(key, intent, parsed.data, options.requestApproval);
    }
    return handled(intent, parsed.data, key.userId);
  }

  return {
    manifestFor(key) {
      const held = new Set(key.scopes);
      return manifest.map((m) => ({ ...m, allowed: m.requiredScopes.every((s) => held.has(s)) }));
    },
    run(key, name, payload) {
      const outcome = attempt(key, name, payload);
      if (isSvcError(outcome)) throw outcome;
      return outcome;
    },
    attempt,
    runApproved(name, payload, user) {
      const intent = intents.get(name);
      if (intent === undefined) return Promise.reject(new SvcError("UNKNOWN_INTENT", `Unknown intent "${name}"`));
      return handled(intent, payload, user);
    },
  };

  function handled(intent: CompiledIntent, payload: unknown, user: string): Promise<unknown> {
    const running = runHandler(() => intent.handler(payload, user));
    return validateResults ? checkedResult(intent, intent.name, running) : running;
  }

  /** The run, or the approval it waits for when the intent's rule asks for one. */
  async function approvalOrRun(
    key: VerifiedKey,
    intent: CompiledIntent,
    payload: unknown,
    requestApproval: NonNullable<IntentRunnerOptions["requestApproval"]>,
  ): Promise<unknown> {
    const rule = intent.approval!;
    const needed = rule === "always" || await runHandler(() => rule(payload, key.userId));
    if (needed === true) return await requestApproval(key, intent, payload);
    return await handled(intent, payload, key.userId);
  }

  /** The handler's result, checked against the intent's output schema (`validateResults`). */
  async function checkedResult(intent: CompiledIntent, name: string, running: Promise<unknown>): Promise<unknown> {
    const result = await running;
    const checked = intent.output.safeParse(result);
    if (!checked.success) {
      throw new SvcError("RESULT_VALIDATION_ERROR", `The result of "${name}" does not match its output schema`, {
        cause: checked.error,
      });
    }
    return checked.data;
  }
}

/**
 * A copy of a parsed JSON value without own `__proto__` keys at any depth
 * (JSON.parse makes them own properties; code that copies them with spread
 * or `Object.assign` would set a prototype): what zod-validated handlers get.
 * The payload is at most 64 levels deep (the run body's limit).
 */
function withoutProtoKeys(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(withoutProtoKeys);
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k !== "__proto__") copy[k] = withoutProtoKeys(v);
  }
  return copy;
}

/** Whether every scope required is held. */
function holdsAll(held: readonly string[], required: readonly string[]): boolean {
  for (const scope of required) if (!held.includes(scope)) return false;
  return true;
}

function invalidPayload(issues: Issue[]): SvcError {
  return new SvcError("INTENT_VALIDATION_ERROR", "Payload does not match the intent's input schema", {
    details: { issues },
  });
}

async function runHandler(handler: () => unknown): Promise<unknown> {
  try {
    return await handler();
  } catch (error) {
    if (isSvcError(error) && error.status < 500) throw error;
    throw new SvcError("INTENT_FAILED", "The intent failed", { cause: error });
  }
}
