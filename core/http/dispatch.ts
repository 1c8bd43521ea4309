/**
 * The one dispatcher of `/svc`, `/v1` and the dashboard: it matches a request to a route,
 * authenticates the caller, takes the route's rate limit, validates the path,
 * query and body (strictly: an unknown field is refused, naming the closest
 * known one), runs the route, and turns anything thrown into the contract's
 * envelope. Both `createSvc` and `createCloud` are built on it.
 *
 * @module
 */
import { isSvcError, SvcError } from "../errors/mod.ts";
import { errorResponse, readJson } from "./json.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { AuthOf, LimitOf, Route, RouteInput, Side } from "./route.ts";
import { createRouter, pathnameOf } from "./router.ts";
import { parseBodyOrThrow, parseOrThrow } from "./validation.ts";
import { PLATFORM } from "../platform/mod.ts";

/**
 * Authenticates a request for one auth kind: the caller, or its refusal (`UNAUTHORIZED`, …) returned or thrown. A
 * returned refusal costs the server no throw and no rejection through each `await` it crosses (a refused key is
 * answered at the rate an attacker sends).
 */
export type Authenticator<C, D> = (req: Request, deps: D) => C | SvcError | Promise<C | SvcError>;

/** Takes a rate-limit token for a caller, or throws `RATE_LIMITED`. */
export type Limiter<C, D> = (caller: C, deps: D) => void;

/** A side's limiters, by the limits it declares (a missing one is off). */
export type Limiters<S extends Side> = {
  readonly [L in LimitOf<S>]?: Limiter<NonNullable<S["limits"]>[L], S["deps"]>;
};

/** What counts a refused credential per client address (core/abuse's `RefusalsPerAddress`). */
export interface RefusalCounter {
  /**
   * Counts a refused credential from the request's address; throws `429 RATE_LIMITED` past the limit.
   *
   * @param req The request whose credential was refused.
   */
  refused(req: Request): void;
}

/** What {@linkcode createHandler} is built from. */
export interface HandlerOptions<S extends Side> {
  /** The mount prefix, such as `/svc`: every other path is not found. */
  prefix: string;
  /** The route table. */
  routes: readonly Route<S>[];
  /** How each auth kind authenticates. */
  authenticate: { [A in AuthOf<S>]: Authenticator<S["callers"][A], S["deps"]> };
  /**
   * Refused credentials per client address: told of each `401` of the `counted` auth kinds, it turns
   * an address's refusals past its budget into `429` (valid credentials are served whatever the address).
   */
  refusalsPerAddress?: { limit: RefusalCounter; counted: readonly AuthOf<S>[] };
  /** The side's rate limits, by the name routes give in `limit`; a missing one is off. */
  limits?: Limiters<S>;
  /** The services routes use; requests wait until they are ready. */
  deps: Promise<S["deps"]>;
  /** The largest JSON body, in bytes. */
  bodyLimit: number;
  /** Where the causes of 5xx answers go. */
  log?: ErrorLogger;
  /**
   * The answer to anything thrown (an unknown path, a refused caller, a failed route) in the side's own form (the
   * dashboard: an HTML page or a redirect to sign-in); default the contract's envelope.
   */
  errorAnswer?: (error: unknown, req: Request) => Response | Promise<Response>;
  /**
   * Told of every answer: the route it matched (`null`: none), its status and the seconds it took to answer (its
   * status and headers; a streamed body goes on after), and the caller it authenticated (`undefined`: none). Metrics
   * count requests here, and a JSON logger writes its request lines.
   */
  observe?: (
    route: { method: string; path: string; auth: string } | null,
    status: number,
    seconds: number,
    caller: unknown,
  ) => void;
  /** The monotonic clock `observe`'s seconds are read from, in milliseconds (default the platform's). */
  elapsed?: () => number;
}

/**
 * Builds a fetch handler from a route table.
 *
 * @param options The prefix, routes, authenticators, limits, services and body limit.
 * @returns `handle(req)`, a closure that can be passed unbound.
 */
export function createHandler<S extends Side>(options: HandlerOptions<S>): (req: Request) => Promise<Response> {
  const { routes, authenticate, bodyLimit, log } = options;
  const errorAnswer = options.errorAnswer ?? ((error: unknown) => errorResponse(error, log));
  const limits: Limiters<S> = options.limits ?? {};
  const perAddress = options.refusalsPerAddress?.limit;
  const counted = new Set<string>(options.refusalsPerAddress?.counted ?? []);
  const match = createRouter(routes, options.prefix);
  let deps: S["deps"] | undefined;
  const ready = options.deps.then((value) => {
    deps = value;
  }, (cause) => {
    if (isSvcError(cause)) throw cause; // the side said why it cannot serve
    throw new SvcError("STORAGE_UNAVAILABLE", "The database cannot be opened or reached", {
      cause,
      headers: { "retry-after": "5" },
    });
  });
  ready.catch(() => {}); // surfaced by every request's answer

  const observe = options.observe;
  const elapsed = options.elapsed ?? PLATFORM.elapsed;
  if (observe === undefined) return (req) => answer(req, null);
  // The observer is told at the end of `answer` itself: no async layer of its own around every request.
  return (req) => answer(req, { route: null, caller: undefined, started: elapsed() });

  /** Answers a request; `seen` (when the observer asks) is given the route it matched and the caller, then told. */
  async function answer(req: Request, seen: Seen<S> | null): Promise<Response> {
    const told: Told<S> = { route: undefined, caller: undefined, json: undefined, at: undefined };
    let response: Response;
    let thrown: unknown;
    try {
      const answered = await authenticated(req, seen, told);
      if (!isSvcError(answered)) response = answered;
      else { // a refusal the route returned: answered as a thrown one
        thrown = answered;
        const refusal = errorAnswer(answered, req); // the envelope's is no promise: no turn of the microtask queue
        response = refusal instanceof Promise ? await refusal : refusal;
      }
    } catch (error) {
      thrown = error;
      response = await errorAnswer(error, req);
    }
    const { route, at } = told;
    // One read of the clock ends both the route's time and the request's.
    const ended = seen !== null || at !== undefined ? elapsed() : 0;
    if (route?.answered !== undefined && at !== undefined) {
      const answered = { caller: told.caller, json: told.json, error: thrown, response, ms: ended - at };
      route.answered(answered, deps as S["deps"]);
    }
    if (seen !== null) observe!(seen.route, response.status, (ended - seen.started) / 1000, seen.caller);
    return response;
  }

  /** A caller's refusal, returned or thrown; past its address's budget of refused credentials, `429` instead of `401`. */
  function refusedCaller<E>(error: E, auth: string, req: Request): E {
    if (perAddress && counted.has(auth) && isSvcError(error) && error.code === "UNAUTHORIZED") {
      perAddress.refused(req); // throws RATE_LIMITED past the budget
    }
    return error;
  }

  /** Answers a request, returns a route's refusal, or throws; `told` is given what a route's `answered` needs. */
  async function authenticated(req: Request, seen: Seen<S> | null, told: Told<S>): Promise<Response | SvcError> {
    const { route, params } = match(req.method, pathnameOf(req.url));
    if (seen !== null) seen.route = route;
    if (deps === undefined) await ready;
    const services = deps as S["deps"];
    let caller: unknown;
    try {
      caller = await authenticate[route.auth](req, services);
    } catch (error) {
      throw refusedCaller(error, route.auth, req);
    }
    if (isSvcError(caller)) return refusedCaller(caller, route.auth, req);
    if (seen !== null) seen.caller = caller;
    if (route.answered !== undefined) Object.assign(told, { route, caller, at: elapsed() });
    // The one erasure: defineRoute lets a route name only a limit that counts its auth kind's caller.
    const takeToken = () => route.limit === undefined ? undefined : limits[route.limit]?.(caller as never, services);
    takeToken();
    const input: RouteInput = {
      req,
      caller,
      takeToken,
      params: route.params ? parseOrThrow(route.params, params) : params,
      query: route.query ? parseOrThrow(route.query, queryOf(req.url)) : undefined,
      body: undefined,
    };
    if (route.body && route.bodyMediaType === undefined) {
      try {
        const read = await readJson(req, bodyLimit);
        told.json = read;
        input.body = route.takesBodyAsRead?.(read) ? read : parseBodyOrThrow(route.body, read);
      } catch (error) {
        const refusal = route.bodyRefusal?.(error, req);
        if (refusal === undefined) throw error;
        return refusal;
      }
    }
    return await route.run(input, services);
  }
}

/** What the dispatcher keeps for a route's `answered`: the route and caller once authenticated, and when. */
interface Told<S extends Side> {
  route: Route<S> | undefined;
  caller: unknown;
  json: unknown;
  at: number | undefined;
}

/** What {@linkcode createHandler}'s observer is told of a request: the route it matched and the caller. */
interface Seen<S extends Side> {
  route: Route<S> | null;
  caller: unknown;
  /** When the request came in, on the handler's monotonic clock. */
  started: number;
}

function queryOf(url: string): Record<string, string> {
  const at = url.indexOf("?");
  return at === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(at + 1).split("#")[0]));
}
