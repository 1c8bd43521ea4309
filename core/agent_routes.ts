/**
 * `GET /svc/agent/intents` and `POST /svc/agent/run`: what an agent key may see
 * and do. The key is checked by the dispatcher; the rest of the chain is the
 * intent runner's.
 *
 * @module
 */
import { z } from "zod";
import { json } from "./http.ts";
import { jsonDepth, storedText } from "./json_limits.ts";
import type { IntentRunner } from "./intent_runner.ts";
import { type SvcRoute, svcRoute } from "./svc_route.ts";

/** The deepest nesting of a run payload: deeper values never reach an intent's schema or the fallback. */
export const MAX_PAYLOAD_DEPTH = 64;

/** The body of `POST /svc/agent/run`. The payload's shape is the intent's business. */
export const runBody = z.object({
  intent: storedText(1, 200),
  payload: z.unknown().optional().refine(
    (payload) => jsonDepth(payload, MAX_PAYLOAD_DEPTH) <= MAX_PAYLOAD_DEPTH,
    `Must be nested at most ${MAX_PAYLOAD_DEPTH} levels deep`,
  ),
});

/**
 * The agent routes.
 *
 * @param runner Lists and runs intents.
 * @returns The routes.
 */
export function agentRoutes(runner: IntentRunner): SvcRoute[] {
  return [
    svcRoute({
      method: "GET",
      path: "/svc/agent/intents",
      auth: "agent",
      summary: "List the app's intents, with whether this key may run each",
      run({ key }) {
        return Promise.resolve(json({ intents: runner.manifestFor(key) }));
      },
    }),
    svcRoute<z.infer<typeof runBody>>({
      method: "POST",
      path: "/svc/agent/run",
      auth: "agent",
      summary: "Run an intent with a payload",
      body: runBody,
      rateLimited: true,
      async run({ key, body }) {
        const result = await runner.run(key, body.intent, body.payload);
        return json({ ok: true, intent: body.intent, result: result ?? null });
      },
    }),
  ];
}
