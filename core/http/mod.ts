/**
 * HTTP for both sides: JSON in and out, body reading, the router, the route shape and its
 * dispatcher, validation, client addresses and what every adapter's `serve` takes.
 *
 * @module
 */
export { concatBytes, readBody } from "./bytes.ts";
export { clientAddress, withClientAddress } from "./client_address.ts";
export type { ClientAddressSource } from "./client_address.ts";
export { createHandler } from "./dispatch.ts";
export type { RefusalCounter } from "./dispatch.ts";
export { DEFAULT_BODY_LIMIT, errorEnvelope, errorResponse, json, readJson } from "./json.ts";
export { prebuiltAnswer, reusableRefusal } from "./prebuilt_refusals.ts";
export { routeDefiner } from "./route.ts";
export type { Answered, DefineRoute, Route, RouteDescription } from "./route.ts";
export { createRouter, pathnameOf } from "./router.ts";
export type { Method } from "./router.ts";
export { connectionBudget, DEFAULT_CONNECTION_LIMITS } from "./serve_options.ts";
export type { ConnectionLimits, RunningServer, ServeOptions } from "./serve_options.ts";
export { closingAware, DEFAULT_SHUTDOWN_TIMEOUT_MS } from "./server_shutdown.ts";
export { singleBody } from "./single_body.ts";
export { answerKeptByClone, answerWith, textResponse } from "./text_response.ts";
export { toIssues } from "./validation.ts";
export type { Issue } from "./validation.ts";
