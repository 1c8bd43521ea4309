/**
 * Approvals on the app's routes: the signed-in user lists theirs and approves or denies each (JSON, or the decision
 * page the SDK renders at `decideUrl`), and the agent key that asked follows one to its outcome.
 *
 * @module
 */
import { z } from "zod";
import { AGENT_KEY_PREFIX, bearerToken, errorEnvelopeSchema, storedText, waitSeconds } from "../../contract/mod.ts";
import { APPROVAL_STATUSES, type ApprovalStatus } from "../../contract/mod.ts";
import { SvcError } from "../../errors/mod.ts";
import { json } from "../../http/mod.ts";
import type { PendingApproval } from "../../intents/mod.ts";
import { decidedPage, decisionPage } from "../../approvals/mod.ts";
import { readForm } from "../../oauth/mod.ts";
import { defineRoute } from "./app_side.ts";

const statusSchema = z.enum(APPROVAL_STATUSES as [ApprovalStatus, ...ApprovalStatus[]]);
const approvalId = z.object({ id: z.string().min(1).max(200) });
const html = z.string().describe("An HTML page: the decision form, or where the approval stands");

/** One approval as its user sees it. */
export const approvalSchema = z.object({
  approvalId: z.string(),
  intent: z.string(),
  title: z.string(),
  keyId: z.string(),
  keyName: z.string(),
  payload: z.unknown(),
  status: statusSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  reason: z.string().nullable(),
});

/** The answer of a run that waits for its user's decision: `202`. */
export const pendingApprovalSchema = z.object({
  ok: z.literal(true),
  status: z.literal("pending_approval"),
  approvalId: z.string(),
  expiresAt: z.string(),
  decideUrl: z.string(),
});

/** An approval as the agent that asked sees it. */
export const agentApprovalSchema = z.object({
  approvalId: z.string(),
  status: statusSchema,
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  reason: z.string().optional(),
  expiresAt: z.string(),
});

/**
 * The body of `202 pending_approval` for a run that waits, with `decideUrl` absolute at the request's origin.
 *
 * @param pending What the runner answered.
 * @param req The request.
 * @returns The body.
 */
export function pendingBody(pending: PendingApproval, req: Request): z.infer<typeof pendingApprovalSchema> {
  const { approvalId, expiresAt, decideUrl } = pending;
  return { ok: true, status: "pending_approval", approvalId, expiresAt, decideUrl: new URL(decideUrl, req.url).href };
}

/** An agent key never decides: a request that carries one is refused even when the app also resolves a user. */
function noAgentKey(req: Request): void {
  if (bearerToken(req, AGENT_KEY_PREFIX) !== null) {
    throw new SvcError("UNAUTHORIZED", "An agent key never decides an approval: its user does, signed in at the app");
  }
}

/** The approval routes. */
export const approvalRoutes = [
  defineRoute({
    method: "GET",
    path: "/svc/approvals",
    auth: "user",
    summary: "List the signed-in user's approvals, newest first (of one status, or all)",
    query: z.object({ status: statusSchema.optional() }),
    responses: { 200: z.object({ approvals: z.array(approvalSchema) }) },
    async run({ req, caller: user, query }, { approvals }) {
      noAgentKey(req);
      return json({ approvals: await approvals.list(user, query.status) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/svc/approvals/:id",
    auth: "user",
    summary: "The decision page of one of the signed-in user's approvals (HTML, at decideUrl)",
    params: approvalId,
    mediaType: "text/html; charset=utf-8",
    responses: { 200: html, 404: errorEnvelopeSchema },
    async run({ req, caller: user, params }, { approvals, decisionTokens }) {
      noAgentKey(req);
      const approval = await approvals.get(user, params.id);
      const csrf = await decisionTokens.issue(user, approval.approvalId);
      return decisionPage(approval, csrf, new URL(req.url).pathname);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/svc/approvals/:id",
    auth: "user",
    summary: "The decision page's form (URL-encoded `csrf`, `decision` approve or deny, `reason`): decides, " +
      "answers a page (HTML)",
    mediaType: "text/html; charset=utf-8",
    responses: { 200: html, 400: html, 404: errorEnvelopeSchema, 409: html },
    async run({ req, caller: user, params }, { approvals, decisionTokens }) {
      noAgentKey(req);
      const approval = await approvals.get(user, params.id);
      const form = await readForm(req);
      const decision = form?.get("decision");
      const token = form?.get("csrf") ?? "";
      if (!form || (decision !== "approve" && decision !== "deny")) {
        return decidedPage("This form cannot be taken", "Reload the page and decide again.", 400);
      }
      if (!await decisionTokens.check(token, user, approval.approvalId)) {
        return decidedPage("This form has expired", "Reload the page and decide again.", 400);
      }
      try {
        if (decision === "approve") {
          await approvals.approve(user, approval.approvalId);
          return decidedPage(`${approval.title}: approved`, "It ran; the agent gets its result.");
        }
        const reason = (form.get("reason") ?? "").trim().slice(0, 1000);
        await approvals.deny(user, approval.approvalId, reason || undefined);
        return decidedPage(`${approval.title}: denied`, "Nothing ran; the agent is told it was denied.");
      } catch (error) {
        if (error instanceof SvcError && error.code === "ALREADY_DECIDED") {
          return decidedPage(`${approval.title}: already decided`, error.message + ".", 409);
        }
        if (error instanceof SvcError && error.status >= 500) {
          return decidedPage(`${approval.title}: approved, but it failed`, "The agent is told it failed.", 500);
        }
        throw error;
      }
    },
  }),
  defineRoute({
    method: "POST",
    path: "/svc/approvals/:id/approve",
    auth: "user",
    summary: "Approve one of the signed-in user's approvals: its handler runs once, here, with the stored payload",
    params: approvalId,
    responses: {
      200: z.object({ ok: z.literal(true), status: z.literal("approved"), result: z.unknown() }),
      404: errorEnvelopeSchema,
      409: errorEnvelopeSchema,
      500: errorEnvelopeSchema,
    },
    async run({ req, caller: user, params }, { approvals }) {
      noAgentKey(req);
      const result = await approvals.approve(user, params.id);
      return json({ ok: true, status: "approved", result: result ?? null });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/svc/approvals/:id/deny",
    auth: "user",
    summary: "Deny one of the signed-in user's approvals, with an optional reason the agent sees",
    params: approvalId,
    body: z.object({ reason: storedText(0, 1000).optional() }),
    responses: {
      200: z.object({ ok: z.literal(true), status: z.literal("denied") }),
      404: errorEnvelopeSchema,
      409: errorEnvelopeSchema,
    },
    async run({ req, caller: user, params, body }, { approvals }) {
      noAgentKey(req);
      await approvals.deny(user, params.id, body.reason || undefined);
      return json({ ok: true, status: "denied" });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/svc/agent/approvals/:id",
    auth: "agent",
    summary: "The outcome of one of this key's approvals, waiting up to `wait` seconds (0..20) while pending",
    params: approvalId,
    query: z.object({ wait: waitSeconds }),
    responses: { 200: agentApprovalSchema, 404: errorEnvelopeSchema },
    async run({ req, caller, params, query }, { approvals }) {
      return json(await approvals.forAgent(caller, params.id, query.wait, req.signal));
    },
  }),
];
