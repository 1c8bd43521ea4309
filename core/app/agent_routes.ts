/**
 * `GET /svc/agent/intents` and `POST /svc/agent/run`: what an agent key may see
 * and do. The key is checked by the dispatcher; the rest of the chain is the
 * intent runner's.
 *
 * @module
 */
import { z } from "zod";
import { json } from "../http/json.ts";
import { jsonDepth, storedText } from "../contract/limits.ts";
import type { IntentRunner } from "./intent_runner.ts";
import { type SvcRoute, svcRoute } from "../http/route.ts";

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

/** The answer of `POST /svc/agent/run`. The result's shape is the intent's business. */
export const runResponse = z.object({ ok: z.literal(true), intent: z.string(), result: z.unknown() });

/** The answer of `GET /svc/agent/intents`: the manifest, with what this key may run. */
export const manifestResponse = z.object({
  intents: z.array(z.object({
    name: z.string(),
    title: z.string(),
    requiredScopes: z.array(z.string()),
    input: z.record(z.string(), z.unknown()).describe("JSON Schema (draft 2020-12) of the payload"),
    output: z.record(z.string(), z.unknown()).describe("JSON Schema (draft 2020-12) of the result"),
    allowed: z.boolean().describe("Whether this key holds every required scope"),
  })),
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
      response: manifestResponse,
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
      response: runResponse,
      rateLimited: true,
      async run({ key, body }) {
        const result = await runner.run(key, body.intent, body.payload);
        return json({ ok: true, intent: body.intent, result: result ?? null });
      },
    }),
  ];
}
