/**
 * A project's policy as `GET`/`PUT /v1/sdk/policy` and `project policy` see
 * it: the auto-revoke policy, the retention of acknowledged inbox items in
 * days and the bounds of a key's lifetime. Each change is recorded in the audit log.
 *
 * @module
 */
import { z } from "zod";
import { type AutoRevokePolicy, autoRevokePolicySchema } from "../../core/contract/mod.ts";
import { type KeyLifetimePolicy, keyLifetimePolicySchema } from "../../core/contract/mod.ts";
import { type AuditActor, type AuditEntryInput, auditRecord } from "../audit/mod.ts";
import type { ProjectRepository } from "../projects/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest retention a policy sets: ten years. */
export const MAX_RETENTION_DAYS = 3650;

/** The most `inbox.maxDeliveries` may be. */
export const MAX_MAX_DELIVERIES = 100;

/** A project's inbox policy, as the inbox's repository keeps it (this feature does not import the inbox). */
export interface InboxPolicyStorage {
  /** The project's `inbox.maxDeliveries` (5 unless set). */
  maxDeliveries(projectId: string): Promise<number>;
  /** Sets the project's `inbox.maxDeliveries`, with its audit entry. */
  setMaxDeliveries(projectId: string, maxDeliveries: number, audit?: AuditEntryInput): Promise<void>;
}

/** What the policy reads and writes. */
export interface PolicyStorage {
  /** Projects and their settings. */
  projects: ProjectRepository;
  /** The inbox's policy. */
  inbox: InboxPolicyStorage;
}

/** A project's inbox policy. */
export interface InboxPolicy {
  /** Hand-outs of an inbox item without an ack before it becomes a dead letter (1 to 100, default 5). */
  maxDeliveries: number;
}

/** A project's policy on the wire. */
export interface PolicyView {
  /** The auto-revoke policy, or `null` (off, the default). */
  autoRevoke: AutoRevokePolicy | null;
  /** Days acknowledged inbox items are kept, or `null` for the server's default. */
  retentionDays: number | null;
  /** The bounds of a key's lifetime in days (`{ defaultDays, maxDays }`), or `null` (keys never expire unless asked). */
  keyLifetime: KeyLifetimePolicy | null;
  /** The inbox as a queue: when an item becomes a dead letter. */
  inbox: InboxPolicy;
}

const inboxPolicySchema: z.ZodType<InboxPolicy> = z.strictObject({
  maxDeliveries: z.int().min(1).max(MAX_MAX_DELIVERIES)
    .describe("Hand-outs of an inbox item without an ack before it becomes a dead letter (default 5)"),
});

/** The answer of `GET`/`PUT /v1/sdk/policy`. */
export const policyViewSchema: z.ZodType<PolicyView> = z.object({
  autoRevoke: autoRevokePolicySchema.nullable(),
  retentionDays: z.number().min(0).nullable(),
  keyLifetime: keyLifetimePolicySchema.nullable(),
  inbox: inboxPolicySchema,
});

/** A change of policy: what is absent stays as it is. */
export interface PolicyChange {
  /** The new auto-revoke policy, or `null` to turn it off. */
  autoRevoke?: AutoRevokePolicy | null;
  /** The new retention in days, or `null` for the server's default. */
  retentionDays?: number | null;
  /** The new bounds of a key's lifetime, or `null` to clear them. */
  keyLifetime?: KeyLifetimePolicy | null;
  /** The new inbox policy. */
  inbox?: InboxPolicy;
}

/** The body of `PUT /v1/sdk/policy`. */
export const policyChangeSchema: z.ZodType<PolicyChange> = z.strictObject({
  autoRevoke: autoRevokePolicySchema.nullable().optional(),
  retentionDays: z.int().min(1).max(MAX_RETENTION_DAYS).nullable().optional(),
  keyLifetime: keyLifetimePolicySchema.nullable().optional(),
  inbox: inboxPolicySchema.optional(),
});

/**
 * Reads a project's policy.
 *
 * @param storage The cloud's storage.
 * @param projectId The project.
 * @returns The policy.
 */
export async function readPolicy(storage: PolicyStorage, projectId: string): Promise<PolicyView> {
  const { autoRevoke, retentionMs, keyLifetime } = await storage.projects.projectPolicy(projectId);
  const maxDeliveries = await storage.inbox.maxDeliveries(projectId);
  return {
    autoRevoke,
    retentionDays: retentionMs === null ? null : retentionMs / DAY_MS,
    keyLifetime,
    inbox: { maxDeliveries },
  };
}

/**
 * Changes a project's policy and records each change in the audit log
 * (`policy.auto_revoke`, `policy.retention`, `policy.key_lifetime`).
 *
 * @param storage The cloud's storage.
 * @param projectId The project.
 * @param change What to change.
 * @param by Who changes it.
 * @param now The time of the change, in milliseconds (default the platform's clock).
 * @returns The policy after the change, or `null` when the project is unknown.
 */
export async function updatePolicy(
  storage: PolicyStorage,
  projectId: string,
  change: PolicyChange,
  by: AuditActor,
  now: number = PLATFORM.now(),
): Promise<PolicyView | null> {
  const at = new Date(now).toISOString();
  if (change.autoRevoke !== undefined) {
    const detail = { autoRevoke: change.autoRevoke };
    const audit = auditRecord(by, { projectId, action: "policy.auto_revoke", target: projectId, detail });
    if (!await storage.projects.setAutoRevoke(projectId, change.autoRevoke, at, audit)) return null;
  }
  if (change.retentionDays !== undefined) {
    const ms = change.retentionDays === null ? null : change.retentionDays * DAY_MS;
    const detail = { retentionDays: change.retentionDays };
    const audit = auditRecord(by, { projectId, action: "policy.retention", target: projectId, detail });
    if (!await storage.projects.setProjectRetention(projectId, ms, at, audit)) return null;
  }
  if (change.keyLifetime !== undefined) {
    const detail = { keyLifetime: change.keyLifetime };
    const audit = auditRecord(by, { projectId, action: "policy.key_lifetime", target: projectId, detail });
    if (!await storage.projects.setKeyLifetime(projectId, change.keyLifetime, at, audit)) return null;
  }
  if (change.inbox !== undefined) {
    // The project's row is checked first: a policy row of a deleted project would outlive it.
    if (await storage.projects.findProject(projectId) === null) return null;
    const detail = { inbox: change.inbox };
    const audit = auditRecord(by, { projectId, action: "policy.inbox", target: projectId, detail, at: now });
    await storage.inbox.setMaxDeliveries(projectId, change.inbox.maxDeliveries, audit);
  }
  if (
    change.autoRevoke === undefined && change.retentionDays === undefined && change.keyLifetime === undefined &&
    change.inbox === undefined
  ) {
    if (await storage.projects.findProject(projectId) === null) return null;
  }
  return await readPolicy(storage, projectId);
}
