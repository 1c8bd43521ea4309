/**
 * Give software agents scoped access to your application, and tell them that
 * something happened.
 *
 * The app mounts {@linkcode createSvc}'s `handle` to serve `/svc`: signed-in
 * users mint, list and revoke per-user agent keys; agents list the app's
 * intents and run them. Security is enforced in this order: key, scopes,
 * payload schema, handler.
 *
 * @example A Deno app with one intent
 * ```ts
 * import { z } from "zod";
 * import { createSvc, defineIntent } from "@svc/agent-access";
 *
 * const svc = createSvc({
 *   userResolver: (req) => req.headers.get("x-demo-user"),
 *   scopes: ["notes:write"],
 *   storage: "file:./data/app.db",
 *   intents: [defineIntent({
 *     name: "notes.create",
 *     title: "Create a note",
 *     requiredScopes: ["notes:write"],
 *     input: z.object({ title: z.string() }),
 *     handler: ({ title }, user) => ({ id: crypto.randomUUID(), title, user }),
 *   })],
 * });
 * // Deno.serve(svc.handle);
 * ```
 *
 * @module
 */
export { createSvc, DEFAULT_SVC_RATE_LIMITS } from "./core/app/create_svc.ts";
export type { Svc, SvcCloudConfig, SvcConfig, SvcHealth, SvcMode } from "./core/app/svc_config.ts";
export type { RevocationFeedHealth } from "./core/app/revocation_follower.ts";
export type { AutoRevokePolicy } from "./core/contract/auto_revoke.ts";
export type { Revocation, RevocationPage, RevocationReason } from "./core/contract/revocation.ts";
export type { CloudConfig, EmitResult, EventInput } from "./core/app/cloud_client.ts";
export { defineIntent } from "./core/app/intents.ts";
export type {
  InferInput,
  InferOutput,
  Intent,
  IntentRegistry,
  JsonSchema,
  ManifestEntry,
  MaybePromise,
  Schema,
} from "./core/app/intents.ts";
export type { FallbackHandler } from "./core/app/intent_runner.ts";
export { isSvcError, SvcError } from "./core/contract/errors.ts";
export type { ErrorCode, SvcErrorOptions } from "./core/contract/errors.ts";
export type { ErrorLogger } from "./core/http/json.ts";
export type { RateLimit } from "./core/http/rate_limiter.ts";
export type { DatabaseInput, LibsqlClient } from "./core/db/database.ts";
export type { Severity, Violation } from "./core/contract/violation.ts";
export { withSvc } from "./core/app/mount.ts";
export { isOAuthDiscoveryPath, isOAuthReturnUrl } from "./core/app/oauth/mod.ts";
export type { OAuthClientConfig, OAuthConfig } from "./core/app/oauth/mod.ts";
export { clientAddress, withClientAddress } from "./core/http/client_address.ts";
export type { ClientAddressSource } from "./core/http/client_address.ts";
export type { FetchHandler } from "./core/app/mount.ts";
export type { ConnectionLimits, RunningServer, ServeOptions } from "./core/http/serve_options.ts";
