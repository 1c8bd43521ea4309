/**
 * Who changes something, for the audit log: the command line, an app or its
 * tooling (SDK auth), the cloud itself, or an operator; and from where.
 *
 * @module
 */
import { clientAddress } from "../../core/http/mod.ts";
import type { AuditEntryInput } from "./audit_storage.ts";
import type { AuditRepository } from "./audit_repository.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** Who did something, and from which address when known. */
export interface AuditActor {
  /** `cli`, `sdk`, `system`, or an operator's email. */
  actor: string;
  /** The client's address, or `null` when unknown. */
  sourceAddress: string | null;
}

/** The command line: no address. */
export const CLI_ACTOR: AuditActor = { actor: "cli", sourceAddress: null };

/**
 * An SDK-authenticated request as the actor: its client's address when the
 * server gave one ({@linkcode clientAddress}), else `null`.
 *
 * @param req The request.
 * @returns The actor.
 */
export function sdkActor(req: Request): AuditActor {
  return { actor: "sdk", sourceAddress: clientAddress(req) };
}

/** What an audit entry records besides who did it. */
export interface AuditAction {
  /** What happened (`key.revoke`, `operator.sign_in`…). */
  action: string;
  /** The project concerned (default `null`). */
  projectId?: string | null;
  /** What it happened to (default `null`). */
  target?: string | null;
  /** A small JSON object, never a secret (default `{}`). */
  detail?: Record<string, unknown>;
  /** When it happened, in milliseconds (default now). */
  at?: number;
  /**
   * When the cloud received it, in milliseconds, when that is later than `at` (an app's action delivered by its
   * outbox after an outage); default `at`.
   */
  receivedAt?: number;
}

/**
 * Appends an entry to the audit log.
 *
 * @param storage The cloud's storage.
 * @param by Who did it, and from where.
 * @param entry What happened.
 * @returns When appended.
 */
export async function recordAudit(
  storage: { audit: Pick<AuditRepository, "appendAudit"> },
  by: AuditActor,
  entry: AuditAction,
): Promise<void> {
  await storage.audit.appendAudit(auditRecord(by, entry));
}

/**
 * The audit entry as stored, for a write that appends it in its own transaction.
 *
 * @param by Who did it, and from where.
 * @param entry What happened.
 * @returns The entry with its defaults filled in.
 */
export function auditRecord(by: AuditActor, entry: AuditAction): AuditEntryInput {
  return {
    projectId: entry.projectId ?? null,
    actor: by.actor,
    action: entry.action,
    target: entry.target ?? null,
    detail: entry.detail ?? {},
    sourceAddress: by.sourceAddress,
    createdAt: new Date(entry.at ?? PLATFORM.now()).toISOString(),
    ...entry.receivedAt === undefined ? {} : { receivedAt: new Date(entry.receivedAt).toISOString() },
  };
}
