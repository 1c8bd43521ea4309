/**
 * The shape of a `/v1` route handler: what it is given (the validated body,
 * query and path, and the authenticated caller) and the services it may use.
 *
 * @module
 */
import type { z } from "zod";
import type { AgentCaller, SdkCaller } from "./auth.ts";
import type { InboxWaiters } from "./inbox_waiters.ts";
import type { CloudRouteEntry } from "./routes.ts";
import type { CloudStorage } from "./storage/cloud_storage.ts";

/** What the handlers share. */
export interface CloudServices {
  /** The database. */
  storage: CloudStorage;
  /** Long-poll wake-ups. */
  waiters: InboxWaiters;
  /** How often a long poll re-reads the database, for events stored by other processes. */
  recheckMs: number;
  /** `true` once the cloud is closing: long polls answer at once. */
  closing(): boolean;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;
type Caller<A> = A extends "sdk" ? SdkCaller : A extends "agent" ? AgentCaller : null;

/** A request after routing, authentication and validation. */
export interface RouteInput<R extends CloudRouteEntry> {
  /** The raw request (for its abort signal). */
  req: Request;
  /** Who called. */
  caller: Caller<R["auth"]>;
  /** The validated body. */
  body: Output<R extends { body: infer S } ? S : undefined>;
  /** The validated query. */
  query: Output<R extends { query: infer S } ? S : undefined>;
  /** The validated path parameters. */
  params: Output<R extends { params: infer S } ? S : undefined>;
}

/** A handler of one route. */
export type RouteHandler<R extends CloudRouteEntry> = (
  input: RouteInput<R>,
  services: CloudServices,
) => Promise<Response>;

/** A handler for each of the named routes. */
export type RouteHandlers<N extends CloudRouteEntry["name"]> = {
  [R in CloudRouteEntry as R["name"] extends N ? R["name"] : never]: RouteHandler<R>;
};
