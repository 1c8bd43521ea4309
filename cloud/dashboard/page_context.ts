/**
 * What every signed-in page is given: the request, the storage, the clock,
 * the operator and the CSRF token of their forms.
 *
 * @module
 */
import type { CloudStorage, ProjectRecord } from "../storage/cloud_storage.ts";
import type { InboxWaiters } from "../inbox_waiters.ts";
import type { Reveals } from "./reveals.ts";
import type { Session } from "./sessions.ts";
import { type AuditActor, recordAudit } from "../audit_actor.ts";
import type { Visit } from "./visit.ts";
import type { SignInLimiter } from "./sign_in_limiter.ts";

/** A signed-in request. */
export interface PageContext extends Visit {
  /** Its URL. */
  url: URL;
  /** The cloud's storage. */
  storage: CloudStorage;
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
 * Appends an audit entry for an operator's action.
 *
 * @param ctx The request.
 * @param projectId The project concerned, or `null`.
 * @param action What happened.
 * @param target What it happened to, or `null`.
 * @param detail A small JSON object without secrets.
 * @returns When the entry is stored.
 */
export function audit(
  ctx: PageContext,
  projectId: string | null,
  action: string,
  target: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  return recordAudit(ctx.storage, operatorActor(ctx), { projectId, action, target, detail, at: ctx.now });
}
