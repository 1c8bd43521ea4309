/**
 * The zod schemas of what the key routes answer, shared by `/svc/keys` and the
 * cloud's `/v1/sdk/keys`: documents are generated from them and tests check
 * the real answers against them.
 *
 * @module
 */
import { z } from "zod";
import { AGENT_KEY_PREFIX } from "./secrets.ts";

const timestamp = z.iso.datetime();

/** A key as listed to its owner (`PublicKey`). */
export const publicKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(z.string()),
  agentId: z.string(),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable(),
  revokedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable().describe("When the key stops working; null: never"),
  revokesAt: timestamp.nullable().describe(
    "When the key's scheduled revocation takes effect (the end of a reroll's grace); null: none scheduled",
  ),
  start: z.string().describe("The key's first 12 characters, for recognition"),
});

/** The answer to minting: the only response that carries the plaintext key. */
export const mintedKeySchema = publicKeySchema.pick({
  id: true,
  name: true,
  scopes: true,
  agentId: true,
  createdAt: true,
})
  .extend({ key: z.string().startsWith(AGENT_KEY_PREFIX).describe("The agent key; shown once") });

/** The answer to listing keys. */
export const keyListSchema = z.object({ keys: z.array(publicKeySchema) });

/** The answer to revoking a key. */
export const revokedKeySchema = z.object({ ok: z.literal(true), id: z.uuid(), revokedAt: timestamp });

/** The answer of `POST /v1/sdk/keys/verify`: the key, or `valid: false` without saying why. */
export const keyVerificationSchema = z.union([
  z.object({
    valid: z.literal(true),
    key: z.object({
      id: z.uuid(),
      userId: z.string(),
      name: z.string(),
      scopes: z.array(z.string()),
      agentId: z.string(),
      expiresAt: timestamp.nullable().optional().describe("When the key stops working; null: never"),
      revokesAt: timestamp.nullable().optional().describe("When its scheduled revocation takes effect"),
      grantId: z.string().optional().describe("The app's OAuth grant the key is the access token of"),
    }),
  }),
  z.object({ valid: z.literal(false) }),
]);

/** The answer of commands that return nothing else. */
export const okSchema = z.object({ ok: z.literal(true) });

/** The key an agent presents, as `GET /svc/agent/intents` tells it: never its owner or secret. */
export const agentKeyInfoSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(z.string()),
  agentId: z.string(),
  expiresAt: timestamp.nullable().describe("When this key stops working; null: never"),
  revokesAt: timestamp.nullable().describe("When its scheduled revocation takes effect (it was rerolled); null: none"),
});

/** {@linkcode agentKeyInfoSchema}'s type. */
export type AgentKeyInfo = z.infer<typeof agentKeyInfoSchema>;
