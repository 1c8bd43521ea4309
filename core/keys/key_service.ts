/**
 * Where the app's agent keys are minted, listed, revoked and verified. Local
 * and hybrid modes keep them in the app's storage; cloud mode asks the cloud.
 *
 * @module
 */
import type { KeyRecord, MintKeyRequest, PublicKey } from "../contract/mod.ts";

/** A key as seen by the request that presented it. */
export type VerifiedKey = Pick<
  KeyRecord,
  "id" | "userId" | "name" | "scopes" | "agentId" | "revokedAt" | "expiresAt"
>;

/** The result of minting: the listed form of the key and its plaintext, shown once. */
export interface MintResult {
  /** What `GET /svc/keys` will list. */
  key: PublicKey;
  /** The `svc_live_…` plaintext. */
  secret: string;
}

/** The key operations the `/svc` routes need. */
export interface KeyService {
  /** Mints a key for a user; the agentId rules are enforced here. `expiresAt` (ISO 8601): local and hybrid modes. */
  mint(userId: string, request: MintKeyRequest & { expiresAt?: string | null }): Promise<MintResult>;
  /** The user's keys. */
  list(userId: string): Promise<PublicKey[]>;
  /** Revokes one of the user's keys; `null` when the user has no such key. */
  revoke(userId: string, id: string): Promise<{ id: string; revokedAt: string } | null>;
  /** The key with this plaintext, revoked or not; `null` when unknown. */
  verify(secret: string): Promise<VerifiedKey | null>;
  /**
   * What is known of a key without asking anyone (cloud mode's cache): the key, `null` when refused lately, or
   * `undefined` when only a verify call would tell. Absent where verifying costs no call (local keys).
   */
  verifyKnown?(secret: string): Promise<VerifiedKey | null | undefined>;
  /** Writes what is pending (such as lastUsedAt) and releases resources. */
  close(): Promise<void>;
}
