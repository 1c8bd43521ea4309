/**
 * The `/v1` route table, as plain data: method, path, who may call, and the
 * zod schemas of the body, query and path. Handlers are looked up by `name`;
 * the auth matrix and OpenAPI can be generated from this table.
 *
 * @module
 */
import type { z } from "zod";
import type { RoutePattern } from "../core/http/router.ts";
import {
  ackBody,
  agentPath,
  cloudMintKeyBody,
  eventsBody,
  inboxQuery,
  keyPath,
  keysQuery,
  manifestBody,
  mirrorKeyBody,
  revokeKeyPath,
  verifyKeyBody,
  violationBody,
  violationsQuery,
} from "./schemas.ts";

/** The prefix of every cloud route. */
export const CLOUD_PREFIX = "/v1";

/** Who may call a route: the SDK (project secret), an agent (agent key), or anyone. */
export type AuthKind = "sdk" | "agent" | "none";

/** One route of the table. */
export interface CloudRoute extends RoutePattern {
  /** A stable name, the key of its handler. */
  name: string;
  /** The credential the route requires. */
  auth: AuthKind;
  /** What the route does, in one line. */
  summary: string;
  /** The success status. */
  status: number;
  /** The JSON body schema, for routes that take one. */
  body?: z.ZodType;
  /** The query schema, for routes that read one. */
  query?: z.ZodType;
  /** The path parameter schema, for routes with `:name` segments. */
  params?: z.ZodType;
  /** The route writes: it counts against `rateLimit.perProject`. */
  write?: boolean;
}

/** Every `/v1` route. */
export const cloudRoutes = [
  {
    name: "putManifest",
    write: true,
    method: "PUT",
    path: "/v1/sdk/intents",
    auth: "sdk",
    status: 200,
    summary: "Store the project's intent manifest",
    body: manifestBody,
  },
  {
    name: "getManifest",
    method: "GET",
    path: "/v1/sdk/intents",
    auth: "sdk",
    status: 200,
    summary: "Read the manifest",
  },
  {
    name: "reportViolation",
    write: true,
    method: "POST",
    path: "/v1/sdk/violations",
    auth: "sdk",
    status: 200,
    summary: "Report a violation",
    body: violationBody,
  },
  {
    name: "listViolations",
    method: "GET",
    path: "/v1/sdk/violations",
    auth: "sdk",
    status: 200,
    summary: "List violations, newest first",
    query: violationsQuery,
  },
  {
    name: "emitEvents",
    write: true,
    method: "POST",
    path: "/v1/events",
    auth: "sdk",
    status: 202,
    summary: "Emit one event or a batch into agent inboxes",
    body: eventsBody,
  },
  {
    name: "pollInbox",
    method: "GET",
    path: "/v1/agent/inbox",
    auth: "agent",
    status: 200,
    summary: "Poll the calling agent's inbox",
    query: inboxQuery,
  },
  {
    name: "acknowledge",
    write: true,
    method: "POST",
    path: "/v1/agent/ack",
    auth: "agent",
    status: 200,
    summary: "Acknowledge handled inbox items",
    body: ackBody,
  },
  {
    name: "pollAgentInbox",
    method: "GET",
    path: "/v1/agents/:agentId/inbox",
    auth: "sdk",
    status: 200,
    summary: "Poll an agent's inbox (tooling)",
    query: inboxQuery,
    params: agentPath,
  },
  {
    name: "acknowledgeForAgent",
    write: true,
    method: "POST",
    path: "/v1/agents/:agentId/ack",
    auth: "sdk",
    status: 200,
    summary: "Acknowledge an agent's inbox items (tooling)",
    body: ackBody,
    params: agentPath,
  },
  {
    name: "mintKey",
    write: true,
    method: "POST",
    path: "/v1/sdk/keys",
    auth: "sdk",
    status: 201,
    summary: "Mint an agent key for a user",
    body: cloudMintKeyBody,
  },
  {
    name: "listKeys",
    method: "GET",
    path: "/v1/sdk/keys",
    auth: "sdk",
    status: 200,
    summary: "List a user's keys",
    query: keysQuery,
  },
  {
    name: "verifyKey",
    method: "POST",
    path: "/v1/sdk/keys/verify",
    auth: "sdk",
    status: 200,
    summary: "Verify an agent key",
    body: verifyKeyBody,
  },
  {
    name: "revokeKey",
    write: true,
    method: "DELETE",
    path: "/v1/sdk/keys/:id",
    auth: "sdk",
    status: 200,
    summary: "Revoke a key",
    params: revokeKeyPath,
  },
  {
    name: "mirrorKey",
    write: true,
    method: "PUT",
    path: "/v1/sdk/keys/:id",
    auth: "sdk",
    status: 200,
    summary: "Mirror a hybrid app's key record",
    body: mirrorKeyBody,
    params: keyPath,
  },
  {
    name: "openApi",
    method: "GET",
    path: "/v1/openapi.json",
    auth: "none",
    status: 200,
    summary: "This OpenAPI 3.1 document",
  },
] as const satisfies readonly CloudRoute[];

/** One route of {@linkcode cloudRoutes}, with its literal types. */
export type CloudRouteEntry = (typeof cloudRoutes)[number];

/** The names of the routes. */
export type RouteName = CloudRouteEntry["name"];
