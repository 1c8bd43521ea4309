/**
 * What every `/v1` route is given: the route context (`CloudSide`), `defineRoute` and SDK/agent authentication.
 *
 * @module
 */
export * from "./auth.ts";
export * from "./cloud_side.ts";
