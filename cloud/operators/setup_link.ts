/**
 * The one-time setup link `serve` prints while no operator exists: it
 * creates the first admin, once, within an hour.
 *
 * @module
 */
import { hashSecret, mintSecret } from "../../core/contract/mod.ts";
import type { OperatorRepository } from "./operator_repository.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** How long a setup link works: 1 hour. */
export const SETUP_LINK_TTL_MS = 60 * 60 * 1000;

/**
 * Mints a setup link when the cloud has no operator.
 *
 * @param storage The cloud's storage.
 * @param now The time, in milliseconds.
 * @returns The path and query of the link (`/dashboard/setup?token=…`), or `null` when an operator exists.
 */
export async function createSetupLink(
  storage: { operators: OperatorRepository },
  now: number = PLATFORM.now(),
): Promise<string | null> {
  if (await storage.operators.countOperators() > 0) return null;
  const token = mintSecret("svcu_");
  await storage.operators.createSetupToken({
    tokenHash: await hashSecret(token),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + SETUP_LINK_TTL_MS).toISOString(),
  });
  return `/dashboard/setup?token=${token}`;
}
