/**
 * `PUT` and `GET /v1/sdk/intents`: the project's intent manifest.
 *
 * @module
 */
import { json } from "../../core/http/json.ts";
import type { RouteHandlers } from "../route_handler.ts";

/** The manifest handlers. */
export const intentHandlers: RouteHandlers<"putManifest" | "getManifest"> = {
  async putManifest({ caller, body }, { storage }) {
    const updatedAt = new Date().toISOString();
    await storage.putManifest(caller.projectId, { intents: body.intents, scopes: body.scopes ?? [], updatedAt });
    return json({ ok: true, count: body.intents.length, updatedAt });
  },
  async getManifest({ caller }, { storage }) {
    return json(await storage.getManifest(caller.projectId));
  },
};
