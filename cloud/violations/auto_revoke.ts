/**
 * Applying a project's auto-revoke policy to a reported violation: the
 * counting rule is the contract's, the revoke with its violation and audit
 * entry is one transaction of the storage.
 *
 * @module
 */
import { countsToward, type Violation } from "../../core/contract/mod.ts";
import { notifyRevocation } from "../keys/mod.ts";
import type { InboxWaiters } from "../feed/mod.ts";
import type { InboxPolicyStorage } from "./project_policy.ts";
import type { ProjectRepository } from "../projects/mod.ts";
import type { ViolationRepository } from "./violation_repository.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** What the violations' service reads and writes: its own repository and the projects' (the policy). */
export interface ViolationRepositories {
  /** Violations and auto-revoke. */
  violations: ViolationRepository;
  /** Projects and their policy. */
  projects: ProjectRepository;
  /** The inbox's policy. */
  inbox: InboxPolicyStorage;
}

/**
 * Applies the project's auto-revoke policy after a violation was stored: at
 * the threshold the key is revoked (reason `auto`) and the feed's polls are woken.
 *
 * @param deps The storage and the long polls' wake-ups.
 * @param projectId The project.
 * @param violation The stored violation.
 * @param now The time of a revocation, in milliseconds (default the platform's clock).
 * @returns When applied.
 */
export async function applyAutoRevoke(
  deps: { storage: ViolationRepositories; waiters: InboxWaiters },
  projectId: string,
  violation: Violation,
  now: number = PLATFORM.now(),
): Promise<void> {
  if (violation.kind === "AUTO_REVOKED") return;
  const { autoRevoke } = await deps.storage.projects.projectPolicy(projectId);
  if (autoRevoke === null || !countsToward(autoRevoke, violation)) return;
  const outcome = await deps.storage.violations.autoRevoke(
    projectId,
    violation.keyId,
    autoRevoke,
    new Date(now).toISOString(),
  );
  if (outcome !== null) notifyRevocation(deps.waiters, projectId);
}
