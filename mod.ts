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
import "./core/runtime/mod.ts"; // first: Node < 22 gets one line, nothing else runs
export { createSvc, DEFAULT_SVC_RATE_LIMITS } from "./core/app/mod.ts";
export type {
  ApprovalsConfig,
  CloudSvcConfig,
  HybridSvcConfig,
  KeyLifetimeConfig,
  LocalSvcConfig,
  McpOptions,
  ScopeDefinition,
  ScopeList,
  Svc,
  SvcCloudConfig,
  SvcConfig,
  SvcHealth,
  SvcMode,
  SvcOptions,
  SvcRateLimitName,
} from "./core/app/mod.ts";
export type { RevocationFeedHealth } from "./core/cloud_link/mod.ts";
export type { AutoRevokePolicy, CloudLinkState } from "./core/contract/mod.ts";
export type { CloudConfig } from "./core/cloud_link/mod.ts";
export type { EmitResult, EventInput } from "./core/contract/mod.ts";
export { defineIntent } from "./core/intents/mod.ts";
export type { InferInput, InferOutput, Intent, IntentRegistry, MaybePromise, Schema } from "./core/intents/mod.ts";
export type { JsonSchema, ManifestEntry } from "./core/contract/mod.ts";
export type { FallbackHandler } from "./core/intents/mod.ts";
export type { ApprovalRule } from "./core/intents/mod.ts";
export type { Approval } from "./core/approvals/mod.ts";
export type { ApprovalStatus } from "./core/contract/mod.ts";
export { isSvcError, SvcError } from "./core/errors/mod.ts";
export type { ErrorCode, SvcErrorOptions } from "./core/errors/mod.ts";
export type { ErrorLogger } from "./core/logging/mod.ts";
export type { RateLimit, RateLimits } from "./core/abuse/mod.ts";
export type { DatabaseInput, LibsqlClient } from "./core/db/mod.ts";
export type { Severity, Violation } from "./core/contract/mod.ts";
export { withSvc } from "./core/app/mod.ts";
export { isOAuthDiscoveryPath, isOAuthReturnUrl } from "./core/oauth/mod.ts";
export type { OAuthClientConfig, OAuthConfig } from "./core/oauth/mod.ts";
export { clientAddress, withClientAddress } from "./core/http/mod.ts";
export type { ClientAddressSource } from "./core/http/mod.ts";
export type { FetchHandler } from "./core/app/mod.ts";
export type { ConnectionLimits, RunningServer, ServeOptions } from "./core/http/mod.ts";
