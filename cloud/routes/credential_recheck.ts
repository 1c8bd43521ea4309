/**
 * The credential of a long poll, checked again before it returns anything:
 * a key revoked or a secret rotated while the poll waited gets a 401, not the
 * items that arrived meanwhile. Reads the database directly (no cache).
 *
 * @module
 */
import {
  AGENT_KEY_PREFIX,
  bearerToken,
  hashSecret,
  SDK_SECRET_PREFIX,
  timingSafeEqual,
  unauthorized,
} from "../../core/contract/secrets.ts";
import type { CloudStorage } from "../storage/cloud_storage.ts";

/**
 * Checks that the request's credential still holds.
 *
 * @param req The long poll's request.
 * @param auth Its auth kind.
 * @param projectId The project it was authenticated for.
 * @param storage The cloud's storage.
 * @returns When the credential holds.
 * @throws {SvcError} `UNAUTHORIZED` when the key was revoked or the secret rotated since.
 */
export async function recheckCredential(
  req: Request,
  auth: "sdk" | "agent",
  projectId: string,
  storage: CloudStorage,
): Promise<void> {
  const token = bearerToken(req, auth === "sdk" ? SDK_SECRET_PREFIX : AGENT_KEY_PREFIX);
  if (token === null) throw unauthorized("Missing or invalid credentials");
  const hash = await hashSecret(token);
  if (auth === "sdk") {
    const current = await storage.projectSecretHash(projectId);
    if (current !== null && timingSafeEqual(hash, current)) return;
  } else {
    const found = await storage.findKeyAuth(hash);
    if (found !== null && found.revokedAt === null && found.projectId === projectId) return;
  }
  throw unauthorized("Missing or invalid credentials");
}
