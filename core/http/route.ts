/**
 * The shape of a `/svc` route: plain data (method, path, who may call it, the
 * body schema) plus the function that answers it.
 *
 * @module
 */
import type { z } from "zod";
import type { RoutePattern } from "./router.ts";
import type { VerifiedKey } from "../app/key_service.ts";

/** Who may call a `/svc` route: the app's signed-in user, an agent key, or anyone. */
export type SvcAuth = "user" | "agent" | "none";

/** What a route's `run` receives once the caller is authenticated and the body validated. */
export interface SvcContext<B = unknown> {
  /** The request. */
  req: Request;
  /** Path parameters. */
  params: Record<string, string>;
  /** The validated body (routes without a body schema get `undefined`). */
  body: B;
  /** The signed-in user (routes with `auth: "user"`). */
  user: string;
  /** The agent key (routes with `auth: "agent"`). */
  key: VerifiedKey;
}

/** A `/svc` route. */
export interface SvcRoute<B = unknown> extends RoutePattern {
  /** Who may call it. */
  auth: SvcAuth;
  /** One line for documents. */
  summary: string;
  /** The body schema, for routes with a JSON body. */
  body?: z.ZodType<B>;
  /** The path parameter schema, for documents (the route parses its own `params`). */
  params?: z.ZodType;
  /** The success status, for documents. Default 200. */
  status?: number;
  /** The success body schema, for documents. */
  response?: z.ZodType;
  /** Counts against `rateLimit.perKey` (agent routes), checked before the body is read. */
  rateLimited?: boolean;
  /** Answers the request. */
  run: (ctx: SvcContext<B>) => Promise<Response>;
}

/**
 * Declares a route with its body type inferred from its schema.
 *
 * @param route The route.
 * @returns The same route, with an erased body type so routes fit in one table.
 */
export function svcRoute<B>(route: SvcRoute<B>): SvcRoute {
  return route as unknown as SvcRoute;
}
