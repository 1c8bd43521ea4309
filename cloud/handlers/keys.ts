/**
 * `/v1/sdk/keys…`: minting, listing, revoking and verifying agent keys for
 * cloud mode, and mirroring the key records of hybrid apps.
 *
 * @module
 */
import { SvcError } from "../../core/contract/errors.ts";
import { json } from "../../core/http/json.ts";
import { agentIdTaken, checkAgentId, mintAgentKey, publicKey } from "../../core/contract/agent_keys.ts";
import { AGENT_KEY_PREFIX, hashSecret } from "../../core/contract/secrets.ts";
import { newViolation } from "../../core/contract/violation.ts";
import { recordUse } from "../auth.ts";
import type { RouteHandlers } from "../route_handler.ts";

/** The key handlers. */
export const keyHandlers: RouteHandlers<"mintKey" | "listKeys" | "verifyKey" | "revokeKey" | "mirrorKey"> = {
  async mintKey({ caller, body }, { storage }) {
    // The app checks `default` against its own config before calling; the cloud accepts it.
    const { agentId, kind } = checkAgentId(body.userId, body.agentId, true);
    const { record, key } = await mintAgentKey(body.userId, { name: body.name, scopes: body.scopes, agentId });
    if (!await storage.insertKey(caller.projectId, record, kind)) throw agentIdTaken(agentId);
    const { id, name, scopes, createdAt } = record;
    return json({ id, name, scopes, agentId, key, createdAt }, 201);
  },
  async listKeys({ caller, query }, { storage }) {
    const keys = await storage.listKeys(caller.projectId, query.userId);
    return json({ keys: keys.map(publicKey) });
  },
  async verifyKey({ caller, body }, { storage }) {
    // Never say why a key is invalid: unknown, revoked and another project's look the same.
    const found = body.key.startsWith(AGENT_KEY_PREFIX)
      ? await storage.findKeyByHash(await hashSecret(body.key))
      : null;
    if (found === null || found.projectId !== caller.projectId || found.record.revokedAt !== null) {
      if (found !== null && found.projectId === caller.projectId) {
        // A cloud-mode app cannot tell a revoked key from an unknown one: the cloud records the use for it.
        await storage.addViolation(
          caller.projectId,
          newViolation("REVOKED_KEY", {
            keyId: found.record.id,
            userId: found.record.userId,
            message: "A revoked key was used",
            metadata: { via: "verify" },
          }),
        );
      }
      return json({ valid: false });
    }
    const { id, userId, name, scopes, agentId, lastUsedAt } = found.record;
    await recordUse(storage, id, lastUsedAt);
    return json({ valid: true, key: { id, userId, name, scopes, agentId } });
  },
  async revokeKey({ caller, params }, { storage }) {
    const revokedAt = await storage.revokeKey(caller.projectId, params.id, new Date().toISOString());
    if (revokedAt === null) throw new SvcError("NOT_FOUND", "No such key");
    return json({ ok: true, id: params.id, revokedAt });
  },
  async mirrorKey({ caller, body, params }, { storage }) {
    // The same agentId rules as minting: the user's own id, an agt_<uuid>, or the shared inbox.
    checkAgentId(body.userId, body.agentId, true);
    const outcome = await storage.mirrorKey(caller.projectId, { id: params.id, ...body, lastUsedAt: null });
    if (outcome === "other_project") throw new SvcError("NOT_FOUND", "No such key");
    if (outcome === "agent_taken") throw agentIdTaken(body.agentId);
    if (outcome === "hash_taken") {
      throw new SvcError("VALIDATION_ERROR", "Invalid request", {
        details: { issues: [{ path: "hash", message: "Another key has this hash, or this key had another hash" }] },
      });
    }
    return json({ ok: true });
  },
};
