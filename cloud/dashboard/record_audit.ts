/**
 * Appending an audit entry with the defaults of the dashboard and the command
 * line: no project, no target, no detail, no address, now.
 *
 * @module
 */
import type { CloudStorage } from "../storage/cloud_storage.ts";

/** An entry to record; omitted fields are `null`, `{}` or now. */
export interface AuditRecord {
  /** `cli` or an operator's email. */
  actor: string;
  /** What happened (`operator.sign_in`, `key.revoke`…). */
  action: string;
  /** The project concerned. */
  projectId?: string | null;
  /** What it happened to. */
  target?: string | null;
  /** A small JSON object without secrets. */
  detail?: Record<string, unknown>;
  /** The client's address. */
  sourceAddress?: string | null;
  /** When, in milliseconds (default now). */
  at?: number;
}

/**
 * Appends an entry to the audit log.
 *
 * @param storage The cloud's storage.
 * @param entry The entry.
 * @returns The entry's id.
 */
export function recordAudit(storage: CloudStorage, entry: AuditRecord): Promise<number> {
  return storage.appendAudit({
    projectId: entry.projectId ?? null,
    actor: entry.actor,
    action: entry.action,
    target: entry.target ?? null,
    detail: entry.detail ?? {},
    sourceAddress: entry.sourceAddress ?? null,
    createdAt: new Date(entry.at ?? Date.now()).toISOString(),
  });
}
