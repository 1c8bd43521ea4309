/**
 * How a hybrid or cloud-mode app tells the cloud each step of an approval: queued in its outbox (kept across a
 * restart, retried while the cloud is down, never set aside for a transient failure) and sent in batches to
 * `POST /v1/sdk/approvals/batch`, where each (approvalId, status) is stored and audited once.
 *
 * @module
 */
import type { ApprovalStep } from "../contract/mod.ts";
import type { AppStorage } from "../app/storage/mod.ts";
import type { Outbox } from "./outbox.ts";

/**
 * Builds the `approvalStep` of the `/svc` routes' dependencies for a mode with a cloud.
 *
 * @param storage The app's storage, which holds the outbox.
 * @param outbox The outbox, kicked once the step is queued.
 * @returns `approvalStep(step)`: resolves once the step is queued (durably), not when it reached the cloud.
 */
export function shipApprovalSteps(
  storage: Pick<AppStorage, "queueApprovalStep">,
  outbox: Pick<Outbox, "kick">,
): (step: ApprovalStep) => Promise<void> {
  return async (step) => {
    await storage.queueApprovalStep(step);
    outbox.kick();
  };
}
