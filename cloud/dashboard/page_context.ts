/**
 * What every signed-in page is given: the request, the storage, the clock,
 * the operator and the CSRF token of their forms.
 *
 * @module
 */
import type { CloudStorage, ProjectRecord } from "../storage/cloud_storage.ts";
import type { Reveals } from "./reveals.ts";
import type { Session } from "./sessions.ts";
import { recordAudit } from "./record_audit.ts";

/** A signed-in request. */
export interface PageContext {
  /** The request. */
  req: Request;
  /** Its URL. */
  url: URL;
  /** The cloud's storage. */
  storage: CloudStorage;
  /** Secrets waiting to be shown once. */
  reveals: Reveals;
  /** The time of the request, in milliseconds. */
  now: number;
  /** Whether the request came over https. */
  secure: boolean;
  /** The client's address, or `null`. */
  address: string | null;
  /** The session and its operator. */
  session: Session;
  /** The token every form of the page carries. */
  csrf: string;
  /** The posted form, for a POST. */
  form: URLSearchParams;
}

/** A signed-in request about one project. */
export interface ProjectContext extends PageContext {
  /** The project. */
  project: ProjectRecord;
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
export async function audit(
  ctx: PageContext,
  projectId: string | null,
  action: string,
  target: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(ctx.storage, {
    projectId,
    actor: ctx.session.operator.email,
    action,
    target,
    detail,
    sourceAddress: ctx.address,
    at: ctx.now,
  });
}
