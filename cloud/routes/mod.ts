/**
 * What every `/v1` route is given: the route context (`CloudSide`), `defineRoute` and SDK/agent authentication.
 *
 * @module
 */
export { authenticateAgent, authenticateSdk, KEY_TOUCH_INTERVAL_MS, reauthenticate, recordUse } from "./auth.ts";
export type { AuthStorage, KeyAuth, SdkCaller } from "./auth.ts";
export { CLOUD_PREFIX, cloudLimits, cloudRouteDefiner, defineRoute } from "./cloud_side.ts";
export type { CloudLimit, CloudRouteDeps, CloudSide } from "./cloud_side.ts";
