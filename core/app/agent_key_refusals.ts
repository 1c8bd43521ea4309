/**
 * The `401` answers of an agent route without a reason, built once and reused (core/http/prebuilt_refusals.ts):
 * a missing, malformed or unknown key costs no error, envelope or JSON per request. A key that exists but no longer
 * works gets core/contract's `keyNoLongerWorks` (its reason and time).
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

/** An `Authorization` header that is not `Bearer svc_live_…` with a whole key. */
export const MALFORMED_AGENT_KEY: SvcError = reusableRefusal(
  unauthorized("Malformed agent key: expected Authorization: Bearer svc_live_… with the whole key"),
);

/** A key no one holds (or another project's): no reason is given. */
export const INVALID_AGENT_KEY: SvcError = reusableRefusal(unauthorized("Invalid agent key"));
