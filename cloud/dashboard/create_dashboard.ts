/**
 * `createDashboard()`: the operators' web pages under `/dashboard`, one fetch
 * handler over the cloud's storage. Signed in by default; every page
 * server-rendered, every form working without JavaScript.
 *
 * @module
 */
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { clientAddress, createHandler } from "../../core/http/mod.ts";
import { isSvcError } from "../../core/errors/mod.ts";
import type { InboxWaiters } from "../feed/mod.ts";
import { createSignInLimiter, type SignInLimits } from "../operators/mod.ts";
import type { DashboardServices } from "./dashboard_deps.ts";
import {
  authenticateAdmin,
  authenticateOperator,
  authenticateVisitor,
  type DashboardDeps,
  type DashboardSide,
  PageRefusal,
} from "./dashboard_side.ts";
import { messagePage } from "./fragments.ts";
import { FORM_LIMIT } from "./forms.ts";
import { failurePage } from "./page_failures.ts";
import { DASHBOARD_ROUTES } from "./pages.ts";
import { redirect } from "./responses.ts";
import { createReveals } from "./reveals.ts";
import { overHttps } from "./visit.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** The prefix the dashboard answers under. */
export const DASHBOARD_PREFIX = "/dashboard";

/** How the dashboard behaves: its public URL, session lifetimes and sign-in limits. */
export interface DashboardSettings {
  /**
   * The address browsers use, when a proxy in front terminates TLS: an http(s) origin such as
   * `https://svc.example.com` (no path). Form posts must come from it (the Origin check), and when it is
   * `https://` the cookies get `Secure` and every answer `Strict-Transport-Security`. Default: the
   * request's own URL, which behind such a proxy is `http://`. `X-Forwarded-Proto` is never trusted.
   */
  publicUrl?: string;
  /** A session ends after this long without a request, in milliseconds (default 30 minutes). */
  sessionIdleMs?: number;
  /** A session ends this long after sign-in, in milliseconds (default 12 hours). */
  sessionMaxMs?: number;
  /** How failed sign-ins slow down (default: 5 free, then 1 s doubling up to 15 minutes). */
  signInLimits?: SignInLimits;
}

/** The dashboard's test seams: internal options, not part of the public settings. */
export interface DashboardSeams {
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
  /** The client's address (default: `clientAddress(req)`, what the adapter recorded). */
  clientAddress?: (req: Request) => string | null;
}

/** Options of {@linkcode createDashboard}: the settings, with the public URL checked once by the cloud. */
export interface DashboardOptions extends Omit<DashboardSettings, "publicUrl">, DashboardSeams {
  /** The origin of `publicUrl`, checked by `publicOrigin`, or `null` for the request's own. */
  site: string | null;
  /** The features' services, or the promise of them while the database opens. */
  services: DashboardServices | Promise<DashboardServices>;
  /** The cloud's long-poll wake-ups, so a revoke here reaches the revocation feed's polls at once. */
  waiters: InboxWaiters;
  /** Where causes of failures go (default `console.error`). */
  logger?: ErrorLogger;
}

/** The dashboard. */
export interface Dashboard {
  /** Answers requests under `/dashboard`; 404 elsewhere. A closure: pass it unbound. */
  handle(req: Request): Promise<Response>;
}

/**
 * Creates the dashboard.
 *
 * @param options The services, checked public origin, session lifetimes, sign-in limits and clock.
 * @returns The handler.
 *
 * @example Serve the dashboard next to the cloud
 * ```ts ignore
 * const storage = await openCloudStorage("file:./data/svc.db");
 * const waiters = createInboxWaiters();
 * const services = createCloudServices(storage, waiters);
 * const dashboard = createDashboard({ site: null, services, waiters });
 * Deno.serve((req) => dashboard.handle(req));
 * ```
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const log = options.logger ?? ((message: string, cause: unknown) => console.error(`[svc] ${message}`, cause));
  const settled: Omit<DashboardDeps, "services"> = {
    waiters: options.waiters,
    reveals: createReveals(),
    limiter: createSignInLimiter(options.signInLimits),
    limits: {
      idleMs: options.sessionIdleMs ?? 30 * 60 * 1000,
      maxMs: options.sessionMaxMs ?? 12 * 60 * 60 * 1000,
    },
    now: options.now ?? PLATFORM.now,
    site: options.site,
    address: options.clientAddress ?? clientAddress,
    log,
  };
  const deps: Promise<DashboardDeps> = Promise.resolve(options.services).then((services) => ({ ...settled, services }));
  const secure = (req: Request) => overHttps({ origin: options.site ?? new URL(req.url).origin });
  const handleRow = createHandler<DashboardSide>({
    prefix: "",
    routes: DASHBOARD_ROUTES,
    authenticate: {
      none: () => null,
      visitor: authenticateVisitor,
      operator: authenticateOperator,
      admin: authenticateAdmin,
    },
    deps,
    bodyLimit: FORM_LIMIT,
    errorAnswer: (error, req) => refusalPage(error, req, deps, log, secure(req)),
  });
  return {
    handle(req) {
      const { pathname } = new URL(req.url);
      if (pathname !== DASHBOARD_PREFIX && !pathname.startsWith(`${DASHBOARD_PREFIX}/`)) {
        return messagePage(404, "Not found", "There is no such page.", secure(req));
      }
      return handleRow(req);
    },
  };
}

/**
 * The page for what the dispatcher threw: a refusal already a page (sign-in redirect, 403, 400), a method other than
 * GET and POST (405), a path without a row (signed out: the sign-in redirect; a trailing slash: the path without it;
 * a malformed `%` escape: 400; else 404), or a failure (413, 429, 507, 503, 500).
 */
async function refusalPage(
  error: unknown,
  req: Request,
  deps: Promise<DashboardDeps>,
  log: ErrorLogger,
  secure: boolean,
): Promise<Response> {
  if (error instanceof PageRefusal) return await error.answer;
  const rowless = isSvcError(error) && (error.code === "NOT_FOUND" || error.code === "METHOD_NOT_ALLOWED");
  if (rowless && req.method !== "GET" && req.method !== "POST") {
    return messagePage(405, "Method not allowed", "Use the links and buttons of the dashboard.", secure);
  }
  const ready = await deps.catch(() => null);
  if (!rowless || ready === null) return failurePage(error, log, secure);
  // As every page: signed out, the sign-in page first (nothing tells which paths exist).
  const signedIn = await authenticateOperator(req, ready).then(() => true, (refused) => refused);
  if (signedIn !== true) return refusalPage(signedIn, req, deps, log, secure);
  const url = new URL(req.url);
  if (url.pathname.endsWith("/")) return redirect(url.pathname.replace(/\/+$/, "") + url.search, secure);
  try {
    decodeURIComponent(url.pathname);
  } catch {
    return messagePage(400, "Bad request", "The address has a malformed % escape.", secure);
  }
  return messagePage(404, "Not found", "There is no such page.", secure);
}
