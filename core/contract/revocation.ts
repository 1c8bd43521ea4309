/**
 * The revocation feed: every revocation the cloud learns of, numbered per
 * project, as `GET /v1/sdk/keys/revocations` answers it and apps follow it.
 *
 * @module
 */
import { z } from "zod";
import { isoTimestamp } from "./wire_values.ts";

/**
 * Why a key was revoked: by a hybrid app, through its own `DELETE /svc/keys/:id`
 * and mirrored to the cloud (`app`); through `DELETE /v1/sdk/keys/:id` (`tooling`,
 * or `app` when a cloud-mode app says it revokes for its user); by an operator on the dashboard
 * (`dashboard`); by the auto-revoke policy (`auto`); at the end of a reroll's grace (`reroll`); or because an
 * OAuth grant ended or its access token was replaced (`oauth`).
 */
export type RevocationReason = "app" | "tooling" | "dashboard" | "auto" | "reroll" | "oauth";

/** Every {@linkcode RevocationReason}. */
export const REVOCATION_REASONS: readonly RevocationReason[] = [
  "app",
  "tooling",
  "dashboard",
  "auto",
  "reroll",
  "oauth",
];

/** {@linkcode RevocationReason}. */
export const revocationReasonSchema: z.ZodType<RevocationReason> = z.enum(
  REVOCATION_REASONS as [RevocationReason, ...RevocationReason[]],
);

/** One revocation of the feed. */
export interface Revocation {
  /** Its number in the project's feed: 1, 2, 3… */
  seq: number;
  /** The revoked key. */
  keyId: string;
  /** When it was revoked (the first revocation's time). */
  revokedAt: string;
  /** Why. */
  reason: RevocationReason;
}

/** A page of the feed: the answer of `GET /v1/sdk/keys/revocations`. */
export interface RevocationPage {
  /** Ascending by `seq`, all after the asked `after`. */
  revocations: Revocation[];
  /** The last returned `seq`, or the asked `after` when none: the next call's `after`. */
  nextSeq: number;
}

/** {@linkcode RevocationPage}, as answered. */
export const revocationPageSchema: z.ZodType<RevocationPage> = z.object({
  revocations: z.array(z.object({
    seq: z.int().min(1),
    keyId: z.string(),
    revokedAt: isoTimestamp,
    reason: revocationReasonSchema,
  })),
  nextSeq: z.int().min(0),
});
