/**
 * The two `401` answers of an agent route, built once and reused (core/http/prebuilt_refusals.ts):
 * an unknown or revoked key costs no error, envelope or JSON per request.
 *
 * @module
 */
import type { SvcError } from "../errors/mod.ts";
import { unauthorized } from "../contract/mod.ts";
import { reusableRefusal } from "../http/mod.ts";

/** No `Authorization: Bearer svc_live_…` header. */
export const MISSING_AGENT_KEY: SvcError = reusableRefusal(
  unauthorized("An agent key is required: Authorization: Bearer svc_live_…"),
);

/** A key that is unknown or revoked (the two are not told apart). */
export const INVALID_AGENT_KEY: SvcError = reusableRefusal(unauthorized("Invalid agent key"));
