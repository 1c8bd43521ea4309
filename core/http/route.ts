/**
 * The one shape of a route, for `/svc` and `/v1` alike: plain data (method,
 * path, who may call it, the zod schemas of its body, query, path and every
 * answer) plus the function that answers it. Route tables are data, so the
 * dispatcher, the OpenAPI documents and the auth matrix all walk the same table.
 *
 * @module
 */
import type { z } from "zod";
import type { SvcError } from "../errors/mod.ts";
import type { RoutePattern } from "./router.ts";

/**
 * What one side of the toolkit routes with: the caller each auth kind yields
 * (`none` yields `null`) and the services its routes use.
 */
export interface Side {
  /** The caller each auth kind yields, such as `{ agent: VerifiedKey; none: null }`. */
  callers: Record<string, unknown>;
  /** The side's rate limits: each one's name and the caller it counts, such as `{ perKey: VerifiedKey }`. */
  limits?: Record<string, unknown>;
  /** What every route of the side is given besides its input. */
  deps: unknown;
}

/** The auth kinds of a side. */
export type AuthOf<S extends Side> = keyof S["callers"] & string;

/** The names of a side's rate limits. */
export type LimitOf<S extends Side> = keyof NonNullable<S["limits"]> & string;

/** The rate limits a route of auth kind `A` may take: those that count the caller `A` yields. */
export type LimitFor<S extends Side, A extends AuthOf<S>> = {
  [L in LimitOf<S>]: S["callers"][A] extends NonNullable<S["limits"]>[L] ? L : never;
}[LimitOf<S>];

/**
 * Each status a route answers with and the zod schema of its body (`null`:
 * no body). Success statuses are listed by every route; errors that follow
 * from the route's shape (400, 401, 404, 405, 413, 429, 500) are added by the
 * documents, so a route lists only its own (such as 403 for a scope check).
 */
export type Responses = Readonly<Record<number, z.ZodType | null>>;

/** What `run` receives once the caller is authenticated and every input validated. */
export interface RouteInput<C = unknown, B = unknown, Q = unknown, P = unknown> {
  /** The request (for its headers and abort signal). */
  req: Request;
  /** Who called: the value the route's auth kind yields. */
  caller: C;
  /** The validated body (`undefined` without a body schema). */
  body: B;
  /** The validated query (`undefined` without a query schema). */
  query: Q;
  /** The validated path parameters (the raw strings without a params schema). */
  params: P;
  /**
   * Takes one more token of the route's rate limit, for a request that carries
   * several calls (an MCP batch); throws `RATE_LIMITED` when none is left. The
   * dispatcher has already taken the request's own token.
   */
  takeToken(): void;
}

/** What a route's `answered` is told of an answer to an authenticated caller. */
export interface Answered<C = unknown> {
  /** Who called. */
  caller: C;
  /** The JSON body as read, before validation (`undefined`: not read, as when the rate limit refused first). */
  json: unknown;
  /** What was thrown (`undefined`: the route answered). */
  error: unknown;
  /** The answer. */
  response: Response;
  /** Milliseconds from the caller's authentication to the answer (the dispatcher's monotonic clock). */
  ms: number;
}

/** A route of side `S`, with its input types erased so that routes fit in one table. */
export interface Route<S extends Side = Side> extends RoutePattern {
  /** Who may call it. */
  auth: AuthOf<S>;
  /** One line, for documents. */
  summary: string;
  /** A stable name, the operationId of documents (default: derived from the method and path). */
  name?: string;
  /** The JSON body schema. */
  body?: z.ZodType;
  /**
   * The media type of a body the route reads itself, in its own protocol (OAuth's form posts:
   * `application/x-www-form-urlencoded`): the dispatcher leaves the body unread and `body` only describes it.
   */
  bodyMediaType?: string;
  /**
   * Whether a body as read is one `body` passes as it is (its parse would answer an equal copy), told for less than
   * the parse costs: such a body is handed to `run` as read, any other parsed with `body` (`/svc/mcp`: a JSON-RPC
   * message, whose own checks come after).
   */
  takesBodyAsRead?(read: unknown): boolean;
  /** The query schema (an object of strings on the wire). */
  query?: z.ZodType;
  /** The path parameter schema. */
  params?: z.ZodType;
  /** Every status it answers with and its body schema. */
  responses: Responses;
  /**
   * The media type of the answers it lists in `responses`, when not JSON (`/v1/metrics`: the Prometheus text
   * exposition; OAuth's authorization endpoint: HTML pages); the envelope's errors stay JSON.
   */
  mediaType?: string;
  /** A rate limit of the side, taken after authentication and before the body is read. */
  limit?: LimitOf<S>;
  /**
   * The answer to a body that is not JSON or fails `body`, in the route's own protocol (`/svc/mcp`: JSON-RPC's
   * `-32700` and `-32600`); `undefined` leaves the contract's envelope (`INVALID_JSON`, `VALIDATION_ERROR`, 413).
   */
  bodyRefusal?(error: unknown, req: Request): Response | undefined;
  /**
   * Answers the request. A refusal may be returned instead of thrown: it is answered and told to `answered` as a
   * thrown one, without the cost of a throw (on a server each throw, and each `await` it crosses, costs microseconds).
   */
  run(input: RouteInput, deps: S["deps"]): Promise<Response | SvcError>;
  /**
   * Told of every answer once the caller is authenticated, whatever it was (refusals after authentication, a body
   * refused, a failure): the activity record of an agent run. Must not throw or wait.
   */
  answered?(answered: Answered, deps: S["deps"]): void;
}

/** A route as documents see it: everything but `run` and `answered`, of any side. */
export type RouteDescription = Omit<Route, "run" | "answered">;

/** A route as written, with the types of its input inferred from its schemas. */
export interface RouteDefinition<S extends Side, A extends AuthOf<S>, B, Q, P>
  extends Omit<Route<S>, "auth" | "limit" | "body" | "query" | "params" | "run" | "answered"> {
  /** Who may call it. */
  auth: A;
  /** A rate limit of the side that counts this route's caller. */
  limit?: LimitFor<S, A>;
  /** The JSON body schema. */
  body?: z.ZodType<B>;
  /** The query schema. */
  query?: z.ZodType<Q>;
  /** The path parameter schema. */
  params?: z.ZodType<P>;
  /** Answers the request, or returns a refusal (see {@linkcode Route.run}). */
  run(input: RouteInput<S["callers"][A], B, Q, P>, deps: S["deps"]): Promise<Response | SvcError>;
  /** Told of every answer once the caller is authenticated (see {@linkcode Route.answered}). */
  answered?(answered: Answered<S["callers"][A]>, deps: S["deps"]): void;
}

/** Declares a route of one side. */
export type DefineRoute<S extends Side> = <
  A extends AuthOf<S>,
  B = undefined,
  Q = undefined,
  P = Record<string, string>,
>(
  route: RouteDefinition<S, A, B, Q, P>,
) => Route<S>;

/**
 * Makes the `defineRoute` of a side: each route's input is typed from its
 * schemas and auth kind, and the route is returned in the table's shape.
 *
 * @returns `defineRoute` for side `S`.
 *
 * @example A side with one route
 * ```ts
 * import { z } from "zod";
 * import { routeDefiner } from "./route.ts";
 * import { json } from "./json.ts";
 *
 * type Demo = { callers: { none: null }; deps: { greeting: string } };
 * const defineRoute = routeDefiner<Demo>();
 * const hello = defineRoute({
 *   method: "GET",
 *   path: "/demo/hello",
 *   auth: "none",
 *   summary: "Say hello",
 *   responses: { 200: z.object({ text: z.string() }) },
 *   run: (_input, deps) => Promise.resolve(json({ text: deps.greeting })),
 * });
 * ```
 */
export function routeDefiner<S extends Side>(): DefineRoute<S> {
  // The one erasure: a route's precise input type is checked where it is written.
  return (route) => route as unknown as Route<S>;
}
