/**
 * `POST /v1/sdk/approvals/batch`: the steps of approvals a hybrid or cloud-mode app reports (never a payload or a
 * result), each (approvalId, status) stored and audited once; `GET /v1/sdk/approvals`: them, newest first, for
 * tooling.
 *
 * @module
 */
import { z } from "zod";
import { approvalBatchSchema, isoTimestamp, pageSize, storedText } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { type AuditActor, sdkActor } from "../audit/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { ApprovalService } from "./approval_service.ts";

const defineRoute = cloudRouteDefiner<{ approvals: ApprovalService }>();

/** The statuses an approval has. */
const approvalStatus = z.enum(["pending", "approved", "denied", "expired", "cancelled"]);
/** An approval's id: `apr_` + ULID. */
const approvalId = z.string().regex(/^apr_[0-9A-HJKMNP-TV-Z]{26}$/, "apr_ followed by a ULID");

/** The answer of `POST /v1/sdk/approvals/batch`. */
const storedSteps = z.object({
  ok: z.literal(true),
  stored: z.number().int().min(0).describe("Steps newly stored (a repeated (approvalId, status) is not counted)"),
});

/** One approval as listed: its latest step. */
const listedApproval = z.object({
  approvalId,
  intent: z.string(),
  keyId: z.string(),
  userId: z.string().describe("The key's user, who decides in the app"),
  agentId: z.string().nullable(),
  status: approvalStatus.describe("Its latest status; `expired` also when its expiry passed while still pending"),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
  decidedAt: isoTimestamp.nullable(),
  reason: z.string().nullable().describe("A denial's reason, when given"),
});

/** The answer of `GET /v1/sdk/approvals`. */
const approvalPage = z.object({
  approvals: z.array(listedApproval),
  nextCursor: approvalId.nullable().describe("Pass as `cursor` for the next page; null on the last"),
});

/** The query of `GET /v1/sdk/approvals`. */
const approvalsQuery = z.object({
  status: approvalStatus.optional().describe("Only this status (`pending`: not yet expired)"),
  keyId: storedText(1, 200).optional().describe("Only this key's"),
  userId: storedText(1, 200).optional().describe("Only this user's"),
  limit: pageSize(1),
  cursor: approvalId.optional().describe("The previous page's nextCursor"),
});

/** The app acting for its user: the audit entries of its approvals' steps. */
function appActor(req: Request): AuditActor {
  return { ...sdkActor(req), actor: "app" };
}

/** The approvals' routes. */
export const approvalRoutes = [
  defineRoute({
    name: "reportApprovalSteps",
    method: "POST",
    path: "/v1/sdk/approvals/batch",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Report up to 500 steps of approvals (no payload), each (approvalId, status) stored and audited once",
    body: approvalBatchSchema,
    responses: { 200: storedSteps },
    async run({ req, caller, body }, { approvals }) {
      return json({ ok: true, stored: await approvals.record(caller.projectId, body.approvals, appActor(req)) });
    },
  }),
  defineRoute({
    name: "listApprovals",
    method: "GET",
    path: "/v1/sdk/approvals",
    auth: "sdk",
    summary: "List the project's approvals as their apps reported them, newest first",
    query: approvalsQuery,
    responses: { 200: approvalPage },
    async run({ caller, query }, { approvals }) {
      return json(await approvals.list(caller.projectId, query));
    },
  }),
];
