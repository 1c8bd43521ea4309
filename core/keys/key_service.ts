/**
 * Where the app's agent keys are minted, listed, revoked and verified. Local
 * and hybrid modes keep them in the app's storage; cloud mode asks the cloud.
 *
 * @module
 */
import type { KeyRecord, PublicKey } from "../contract/mod.ts";

/** A key as seen by the request that presented it. */
export type VerifiedKey = Pick<
  KeyRecord,
  "id" | "userId" | "name" | "scopes" | "agentId" | "revokedAt" | "expiresAt" | "revokesAt" | "grantId"
>;

/** The result of minting: the listed form of the key and its plaintext, shown once. */
export interface MintResult {
  /** What `GET /svc/keys` will list. */
  key: PublicKey;
  /** The `svc_live_…` plaintext. */
  secret: string;
}

/** What a mint asks for once its lifetime is settled: `expiresAt` ISO 8601, `null` or absent: never. */
export interface KeyRequest {
  /** Display name. */
  name: string;
  /** Scopes asked for. */
  scopes: string[];
  /** The inbox (the user's own id when absent). */
  agentId?: string;
  /** When the key stops working. */
  expiresAt?: string | null;
  /** The OAuth grant the key is the access token of (set by the OAuth server only). */
  grantId?: string;
}

/** How a key is rerolled: when the old one's revocation takes effect, and the new one's expiry. */
export interface RerollRequest {
  /** The grace, in minutes (a cloud that keeps the key computes `revokesAt` on its own clock). */
  graceMinutes: number;
  /** ISO 8601: the end of the grace, when the old key is revoked (reason `reroll`). */
  revokesAt: string;
  /** The new key's expiry, from the old key (ISO 8601, or `null`: never). */
  expiresAt(old: PublicKey): string | null;
}

/** The key operations the `/svc` routes need. */
export interface KeyService {
  /** Mints a key for a user; the agentId rules are enforced here. */
  mint(userId: string, request: KeyRequest): Promise<MintResult>;
  /**
   * Mints the successor of one of the user's keys in force (same name, scopes and agentId) and schedules the old
   * key's revocation; `null` when the user has no such key in force (unknown, another's, revoked or expired).
   */
  reroll(userId: string, id: string, request: RerollRequest): Promise<MintResult | null>;
  /** The user's keys. */
  list(userId: string): Promise<PublicKey[]>;
  /**
   * Revokes one of the user's keys; `null` when the user has no such key. `reason` says why at the cloud (`app`,
   * the default: the user; `oauth`: the OAuth server's own revoke, when a grant ended or its key was replaced).
   * Any revoke but `oauth` of a key of an OAuth grant ends the grant and revokes its key in force, in the same
   * transaction where the keys live.
   */
  revoke(userId: string, id: string, reason?: "app" | "oauth"): Promise<{ id: string; revokedAt: string } | null>;
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
