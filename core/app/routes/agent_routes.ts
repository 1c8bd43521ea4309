/**
 * `GET /svc/agent/intents` and `POST /svc/agent/run`: what an agent key may see
 * and do. The key is checked by the dispatcher; the rest of the chain is the
 * intent runner's.
 *
 * @module
 */
import { z } from "zod";
import { errorEnvelopeSchema } from "../../contract/mod.ts";
import { jsonDepth, storedText } from "../../contract/mod.ts";
import { agentManifestSchema } from "../../contract/mod.ts";
import { redactSecrets } from "../../contract/mod.ts";
import { isSvcError, type SvcError } from "../../errors/mod.ts";
import type { Answered } from "../../http/mod.ts";
import type { VerifiedKey } from "../../keys/mod.ts";
import type { AppDeps } from "./app_side.ts";
import { json } from "../../http/mod.ts";
import { defineRoute } from "./app_side.ts";
import { mayStepUp, stepUpRefusal } from "./scope_step_up.ts";
import { PendingApproval } from "../../intents/mod.ts";
import { pendingApprovalSchema, pendingBody } from "./approval_routes.ts";

/** The deepest nesting of a run payload: deeper values never reach an intent's schema or the fallback. */
export const MAX_PAYLOAD_DEPTH = 64;

/** The body of `POST /svc/agent/run` (and the arguments of an MCP `tools/call`). The payload's shape is the intent's business. */
export const runBody = z.object({
  intent: storedText(1, 200),
  payload: z.unknown().optional().refine(
    (payload) => jsonDepth(payload, MAX_PAYLOAD_DEPTH) <= MAX_PAYLOAD_DEPTH,
    `Must be nested at most ${MAX_PAYLOAD_DEPTH} levels deep`,
  ),
});

/** The answer of `POST /svc/agent/run`. The result's shape is the intent's business. */
export const runResponse = z.object({ ok: z.literal(true), intent: z.string(), result: z.unknown() });

/** The agent routes: what an agent key may see and do. */
export const agentRoutes = [
  defineRoute({
    method: "GET",
    path: "/svc/agent/intents",
    auth: "agent",
    summary: "List the app's intents, with whether this key may run each, and the key (when it expires)",
    responses: { 200: agentManifestSchema },
    run({ caller }, { runner }) {
      const { id, name, scopes, agentId } = caller;
      const key = {
        id,
        name,
        scopes,
        agentId,
        expiresAt: caller.expiresAt ?? null,
        revokesAt: caller.revokesAt ?? null,
      };
      return Promise.resolve(json({ intents: runner.manifestFor(caller), key }));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/svc/agent/run",
    auth: "agent",
    limit: "perKey",
    summary: "Run an intent with a payload",
    body: runBody,
    responses: {
      200: runResponse,
      202: pendingApprovalSchema,
      403: errorEnvelopeSchema,
      404: errorEnvelopeSchema,
      429: errorEnvelopeSchema,
      500: errorEnvelopeSchema,
    },
    run(input, deps) {
      const { req, caller, body } = input;
      const running = deps.runner.attempt(caller, body.intent, body.payload);
      if (isSvcError(running)) {
        // A refusal is returned, never thrown: the dispatcher answers it from its prebuilt bytes and tells `answered`
        // (a throw would cost the server each `await` it crosses). Only an OAuth app's scope refusal waits, for the
        // step-up challenge.
        if (!mayStepUp(running, body.intent, deps)) return Promise.resolve(running);
        return stepUpRefusal(running, req, caller, body.intent, deps) as Promise<SvcError>;
      }
      return ranAnswer(running, input, deps);
    },
    answered: recordRun,
  }),
];

/** The answer of a run that passed every check: its result, or the approval it waits for. */
async function ranAnswer(
  running: Promise<unknown>,
  { req, caller, body }: { req: Request; caller: VerifiedKey; body: { intent: string } },
  deps: AppDeps,
): Promise<Response> {
  let result: unknown;
  try {
    result = await running;
  } catch (error) {
    throw await stepUpRefusal(error, req, caller, body.intent, deps); // a handler's own scope refusal, as the runner's
  }
  if (result instanceof PendingApproval) return json(pendingBody(result, req), 202);
  // The name is the agent's text: a key pasted into it is not echoed (to the agent's logs, or a proxy's).
  return json({ ok: true, intent: redactSecrets(body.intent), result: result ?? null });
}

/** The approval a `202` run answer asks for (`{ status: "pending_approval", approvalId }`). */
const pendingApproval = z.object({ status: z.literal("pending_approval"), approvalId: z.string().min(1).max(200) });

/**
 * Records a run's activity once it is answered: the intent as sent, never the payload. A `202` answer is read (a
 * copy, after the answer is sent on) for the approval it asks for.
 */
function recordRun({ caller, json: sent, error, response, ms }: Answered<VerifiedKey>, { activity }: AppDeps): void {
  const intent = typeof sent === "object" && sent !== null ? (sent as { intent?: unknown }).intent : undefined;
  const run = {
    key: caller,
    intent,
    via: "http" as const,
    status: response.status,
    ms,
    ...isSvcError(error) ? { code: error.code } : {},
  };
  if (response.status !== 202) return activity.record(run);
  response.clone().json().then(
    (answer) => {
      const pending = pendingApproval.safeParse(answer);
      activity.record(pending.success ? { ...run, approvalId: pending.data.approvalId } : run);
    },
    () => activity.record(run),
  );
}
