/**
 * An agent's dead letters (items handed out `maxDeliveries` times without an ack), their redrive, and the replay of
 * acknowledged items, for the project's tooling (SDK auth); each redrive and replay is audited.
 *
 * @module
 */
import { z } from "zod";
import { isoTimestamp, MAX_BATCH, timestampInput } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { auditRecord, sdkActor } from "../audit/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import { agentPath } from "./inbox_routes.ts";
import type { InboxService } from "./inbox_service.ts";

const defineRoute = cloudRouteDefiner<{ inbox: InboxService }>();

/** The answer of `GET /v1/agents/:agentId/dead-letters`. */
export const deadLettersSchema = z.object({
  items: z.array(z.object({
    inboxId: z.int().min(1),
    eventId: z.string(),
    type: z.string(),
    payload: z.record(z.string(), z.unknown()),
    deliveries: z.int().min(0).describe("Hand-outs without an ack"),
    deadAt: isoTimestamp,
    reason: z.string().describe("`lease_expired`, or the reason given at the last release"),
  })),
});

/** The body of `POST /v1/agents/:agentId/redrive`. */
export const redriveBody = z.object({
  inboxIds: z.array(z.int().min(1)).min(1).max(MAX_BATCH).optional()
    .describe("The dead letters to put back; all when absent"),
});

/** The body of `POST /v1/agents/:agentId/replay`. */
export const replayBody = z.object({
  since: timestampInput.describe("Acknowledged items created at or after this time"),
  until: timestampInput.optional().describe("…and before this time (default now)"),
});

/** The dead-letter routes. */
export const deadLetterRoutes = [
  defineRoute({
    name: "listDeadLetters",
    method: "GET",
    path: "/v1/agents/:agentId/dead-letters",
    auth: "sdk",
    summary: "An agent's dead letters: items handed out maxDeliveries times without an ack, oldest first",
    params: agentPath,
    responses: { 200: deadLettersSchema },
    async run({ caller, params }, { inbox }) {
      return json({ items: await inbox.deadLetters(caller.projectId, params.agentId) });
    },
  }),
  defineRoute({
    name: "redriveDeadLetters",
    method: "POST",
    path: "/v1/agents/:agentId/redrive",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Put an agent's dead letters (all, or those named) back in its inbox, deliveries reset",
    params: agentPath,
    body: redriveBody,
    responses: { 200: z.object({ ok: z.literal(true), redriven: z.int().min(0) }) },
    async run({ req, caller, params, body }, { inbox }) {
      const { projectId } = caller;
      const ids = body.inboxIds === undefined ? undefined : [...new Set(body.inboxIds)];
      const audit = auditRecord(sdkActor(req), {
        projectId,
        action: "inbox.redrive",
        target: params.agentId,
        detail: { agentId: params.agentId, inboxIds: ids ?? "all" },
        at: inbox.now(),
      });
      const redriven = await inbox.redrive(projectId, params.agentId, ids, audit);
      return json({ ok: true, redriven });
    },
  }),
  defineRoute({
    name: "replayInbox",
    method: "POST",
    path: "/v1/agents/:agentId/replay",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Queue again an agent's acknowledged items (still kept) created in a time window: new inbox ids, " +
      "the same eventId and payload, replayOf set",
    params: agentPath,
    body: replayBody,
    responses: { 200: z.object({ ok: z.literal(true), replayed: z.int().min(0) }) },
    async run({ req, caller, params, body }, { inbox }) {
      const { projectId } = caller;
      const audit = auditRecord(sdkActor(req), {
        projectId,
        action: "inbox.replay",
        target: params.agentId,
        detail: { agentId: params.agentId, since: body.since, until: body.until ?? null },
        at: inbox.now(),
      });
      const replayed = await inbox.replay(projectId, params.agentId, body.since, body.until, audit);
      return json({ ok: true, replayed });
    },
  }),
];
