/**
 * What every signed-in page is given: the request, the services, the clock,
 * the operator and the CSRF token of their forms.
 *
 * @module
 */
import type { ProjectRecord } from "../projects/mod.ts";
import type { DashboardServices } from "./dashboard_deps.ts";
import type { InboxWaiters } from "../feed/mod.ts";
import type { Reveals } from "./reveals.ts";
import type { Session } from "../operators/mod.ts";
import { type AuditActor, type AuditEntryInput, auditRecord } from "../audit/mod.ts";
import type { Visit } from "./visit.ts";
import type { SignInLimiter } from "../operators/mod.ts";

/** A signed-in request. */
export interface PageContext extends Visit {
  /** Its URL. */
  url: URL;
  /** The features' services: every change a page makes goes through them. */
  services: DashboardServices;
  /** Long-poll wake-ups: a revoke here wakes the revocation feed at once. */
  waiters: InboxWaiters;
  /** Secrets waiting to be shown once. */
  reveals: Reveals;
  /** The session and its operator. */
  session: Session;
  /** The token every form of the page carries. */
  csrf: string;
  /** The posted form, for a POST. */
  form: URLSearchParams;
  /** The sign-in limiter, which also slows down wrong codes on the account page. */
  limiter: SignInLimiter;
}

/** A signed-in request about one project. */
export interface ProjectContext extends PageContext {
  /** The project. */
  project: ProjectRecord;
}

/**
 * The signed-in operator as the audit log's actor, from the request's address.
 *
 * @param ctx The request.
 * @returns The actor.
 */
export function operatorActor(ctx: PageContext): AuditActor {
  return { actor: ctx.session.operator.email, sourceAddress: ctx.address };
}

/**
 * The audit entry of an operator's action, for a write that appends it in its own transaction.
 *
 * @param ctx The request.
 * @param projectId The project concerned, or `null`.
 * @param action What happened.
 * @param target What it happened to, or `null`.
 * @param detail A small JSON object without secrets.
 * @returns The entry.
 */
export function auditEntry(
  ctx: PageContext,
  projectId: string | null,
  action: string,
  target: string | null,
  detail: Record<string, unknown> = {},
): AuditEntryInput {
  return auditRecord(operatorActor(ctx), { projectId, action, target, detail, at: ctx.now });
}
