/**
 * `GET /svc/agent/intents` and `POST /svc/agent/run`: what an agent key may see
 * and do. The order of checks is the contract's: key (already done by the
 * dispatcher), intent known, scopes, payload schema, handler, result schema.
 *
 * @module
 */
import { z } from "zod";
import { isSvcError, SvcError } from "./errors.ts";
import { json } from "./http.ts";
import type { CompiledIntent } from "./intents.ts";
import type { VerifiedKey } from "./key_service.ts";
import { type SvcRoute, svcRoute } from "./svc_route.ts";
import { toIssues } from "./validation.ts";
import { newViolation, type Violation, type ViolationKind } from "./violations.ts";

/** The body of `POST /svc/agent/run`. The payload's shape is the intent's business. */
export const runBody = z.object({ intent: z.string().min(1).max(200), payload: z.unknown().optional() });

/** Runs an intent that is not in the registry: `(intent, payload, user) => result`. */
export type FallbackHandler = (intent: string, payload: Record<string, unknown>, user: string) => unknown;

/** What the agent routes need from `createSvc`. */
export interface AgentRoutesOptions {
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
}

/**
 * The agent routes.
 *
 * @param options Registry, flags, fallback and violation sink.
 * @returns The routes.
 */
export function agentRoutes(options: AgentRoutesOptions): SvcRoute[] {
  const { intents, strictIntents, validateResults, onAgentIntent, recordViolation } = options;
  const manifest = [...intents.values()].map((i) => i.manifest);
  const fallback = strictIntents ? undefined : onAgentIntent;

  function refuse(key: VerifiedKey, kind: ViolationKind, intent: string, error: SvcError): never {
    recordViolation(newViolation(kind, {
      keyId: key.id,
      userId: key.userId,
      intent,
      message: error.message,
      metadata: error.details === undefined ? {} : { details: error.details },
    }));
    throw error;
  }

  return [
    svcRoute({
      method: "GET",
      path: "/svc/agent/intents",
      auth: "agent",
      summary: "List the app's intents, with whether this key may run each",
      run({ key }) {
        const held = new Set(key.scopes);
        return Promise.resolve(json({
          intents: manifest.map((m) => ({ ...m, allowed: m.requiredScopes.every((s) => held.has(s)) })),
        }));
      },
    }),
    svcRoute<z.infer<typeof runBody>>({
      method: "POST",
      path: "/svc/agent/run",
      auth: "agent",
      summary: "Run an intent with a payload",
      body: runBody,
      async run({ key, body }) {
        const name = body.intent;
        const intent = intents.get(name);
        if (intent === undefined && fallback === undefined) {
          refuse(key, "UNKNOWN_INTENT", name, new SvcError("UNKNOWN_INTENT", `Unknown intent "${name.slice(0, 200)}"`));
        }
        if (intent !== undefined) {
          const held = new Set(key.scopes);
          const missingScopes = intent.requiredScopes.filter((s) => !held.has(s));
          if (missingScopes.length) {
            const error = new SvcError("FORBIDDEN_SCOPE", `This key lacks scopes required by "${name}"`, {
              details: { missingScopes },
            });
            refuse(key, "FORBIDDEN_SCOPE", name, error);
          }
        }
        const payload = body.payload === undefined ? {} : body.payload;
        if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
          refuse(
            key,
            "INTENT_VALIDATION_ERROR",
            name,
            invalidPayload([{ path: "", message: "Payload must be an object" }]),
          );
        }
        if (intent === undefined) {
          const result = await runHandler(() => fallback!(name, payload as Record<string, unknown>, key.userId));
          return json({ ok: true, intent: name, result: result ?? null });
        }
        const parsed = intent.input.safeParse(payload);
        if (!parsed.success) {
          refuse(key, "INTENT_VALIDATION_ERROR", name, invalidPayload(toIssues(parsed.error.issues)));
        }
        let result = await runHandler(() => intent.handler(parsed.data, key.userId));
        if (validateResults) {
          const checked = intent.output.safeParse(result);
          if (!checked.success) {
            throw new SvcError("RESULT_VALIDATION_ERROR", `The result of "${name}" does not match its output schema`, {
              cause: checked.error,
            });
          }
          result = checked.data;
        }
        return json({ ok: true, intent: name, result: result ?? null });
      },
    }),
  ];
}

function invalidPayload(issues: { path: string; message: string }[]): SvcError {
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
