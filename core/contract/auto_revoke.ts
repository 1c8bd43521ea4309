/**
 * The auto-revoke policy: a key that collects `threshold` counted violations
 * within `windowMinutes` is revoked, with an `AUTO_REVOKED` violation saying
 * why. The cloud applies a project's policy (`PUT /v1/sdk/policy`); local mode
 * applies `createSvc({ autoRevoke })` to its own violations.
 *
 * @module
 */
import { z } from "zod";
import { type Severity, severitySchema, type Violation, VIOLATION_SEVERITY, type ViolationKind } from "./violation.ts";
import { PLATFORM } from "../platform/mod.ts";

/** When a key is revoked automatically. */
export interface AutoRevokePolicy {
  /** How many counted violations revoke the key (the threshold-th one does). */
  threshold: number;
  /** Over how many minutes they are counted. */
  windowMinutes: number;
  /** Kinds that count. With neither `kinds` nor `severities`: `FORBIDDEN_SCOPE` and every `severe` one. */
  kinds?: string[];
  /** Severities that count (a violation counts when its kind or its severity is listed). */
  severities?: Severity[];
}

/** What counts when a policy names neither kinds nor severities. */
export const DEFAULT_COUNTED: { kinds: string[]; severities: Severity[] } = {
  kinds: ["FORBIDDEN_SCOPE"],
  severities: ["severe"],
};

/** The longest window: 30 days. */
export const MAX_WINDOW_MINUTES = 30 * 24 * 60;

/** The kinds the SDK records: a policy counting any other would never fire, so it is refused, naming these. */
const violationKindSchema = z.enum(Object.keys(VIOLATION_SEVERITY) as [ViolationKind, ...ViolationKind[]], {
  error: (issue) =>
    `Unknown violation kind ${JSON.stringify(String(issue.input).slice(0, 100))}; the kinds are ${
      Object.keys(VIOLATION_SEVERITY).join(", ")
    }`,
});

/** {@linkcode AutoRevokePolicy}, as accepted and answered. */
export const autoRevokePolicySchema: z.ZodType<AutoRevokePolicy> = z.object({
  threshold: z.int().min(1).max(1_000_000).describe("Counted violations that revoke the key"),
  windowMinutes: z.int().min(1).max(MAX_WINDOW_MINUTES).describe("Minutes over which violations are counted"),
  kinds: z.array(violationKindSchema).max(50).optional().describe("Kinds that count (the kinds the SDK records)"),
  severities: z.array(severitySchema).max(3).optional().describe("Severities that count"),
});

/**
 * The kinds and severities a policy counts.
 *
 * @param policy The policy.
 * @returns Its lists, or the defaults when it names neither.
 */
export function countedBy(policy: AutoRevokePolicy): { kinds: string[]; severities: Severity[] } {
  if (policy.kinds === undefined && policy.severities === undefined) return DEFAULT_COUNTED;
  return { kinds: policy.kinds ?? [], severities: policy.severities ?? [] };
}

/**
 * Whether a violation counts toward a policy. `AUTO_REVOKED` itself never does.
 *
 * @param policy The policy.
 * @param violation The violation's kind and severity.
 * @returns `true` when it counts.
 */
export function countsToward(policy: AutoRevokePolicy, violation: Pick<Violation, "kind" | "severity">): boolean {
  if (violation.kind === "AUTO_REVOKED") return false;
  const { kinds, severities } = countedBy(policy);
  return kinds.includes(violation.kind) || severities.includes(violation.severity);
}

/**
 * The `AUTO_REVOKED` violation recorded when a policy revokes a key.
 *
 * @param key The revoked key and its owner.
 * @param policy The policy that revoked it.
 * @param count How many counted violations it had in the window.
 * @returns The violation (severity `severe`).
 */
export function autoRevokedViolation(
  key: { keyId: string; userId: string | null },
  policy: AutoRevokePolicy,
  count: number,
): Violation {
  return {
    id: PLATFORM.randomUUID(),
    keyId: key.keyId,
    userId: key.userId,
    intent: null,
    kind: "AUTO_REVOKED",
    severity: "severe",
    message: `Revoked automatically after ${count} violations within ${policy.windowMinutes} minutes`,
    metadata: {
      policy: { ...countedBy(policy), threshold: policy.threshold, windowMinutes: policy.windowMinutes },
      count,
    },
    createdAt: new Date(PLATFORM.now()).toISOString(),
  };
}
