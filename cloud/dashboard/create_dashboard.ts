/**
 * `createDashboard()`: the operators' web pages under `/dashboard`, one fetch
 * handler over the cloud's storage. Signed in by default; every page
 * server-rendered, every form working without JavaScript.
 *
 * @module
 */
import type { ErrorLogger } from "../../core/logging/mod.ts";
import type { InboxWaiters } from "../inbox/mod.ts";
import type { DashboardServices } from "./dashboard_deps.ts";
import { trustedPost } from "./csrf.ts";
import { messagePage } from "./fragments.ts";
import { FORM_LIMIT, readForm } from "./forms.ts";
import { isSvcError } from "../../core/agent/mod.ts";
import { storageError } from "../../core/db/mod.ts";
import type { SvcError } from "../../core/errors/mod.ts";
import type { PageContext, ProjectContext } from "./page_context.ts";
import { asset, redirect } from "./responses.ts";
import { createReveals } from "./reveals.ts";
import type { SessionLimits } from "../operators/mod.ts";
import { setUp, setupPage, signIn, signInPage, signOut } from "./signed_out.ts";
import { invitePage, joinPost } from "./invite_page.ts";
import { INVITE_PATH } from "../operators/mod.ts";
import type { Visit } from "./visit.ts";
import { createSignInLimiter, type SignInLimits } from "../operators/mod.ts";
import { csrfToken } from "./csrf.ts";
import { STYLESHEET } from "./style.ts";
import { type Page, PAGES } from "./pages.ts";
import { clientAddress } from "../../core/http/mod.ts";
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
  const limits: SessionLimits = {
    idleMs: options.sessionIdleMs ?? 30 * 60 * 1000,
    maxMs: options.sessionMaxMs ?? 12 * 60 * 60 * 1000,
  };
  const limiter = createSignInLimiter(options.signInLimits);
  const reveals = createReveals();
  const now = options.now ?? PLATFORM.now;
  const address = options.clientAddress ?? clientAddress;
  /** The origin browsers post from: the public URL's, else the request's own. */
  const site = options.site;
  const log = options.logger ?? ((message: string, cause: unknown) => console.error(`[svc] ${message}`, cause));

  async function serve(visit: Visit, url: URL, secure: boolean): Promise<Response> {
    const { req } = visit;
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (path === `${DASHBOARD_PREFIX}/style.css`) return asset(STYLESHEET, "text/css; charset=utf-8", secure);
    if (req.method !== "GET" && req.method !== "POST") {
      return messagePage(405, "Method not allowed", "Use the links and buttons of the dashboard.", secure);
    }
    const services = await options.services;
    const deps = { operators: services.operators, limiter, limits };
    const form = req.method === "POST" ? await readForm(req).catch((e) => tooLarge(e, secure)) : new URLSearchParams();
    if (form instanceof Response) return form;
    if (form === null) return messagePage(400, "Bad request", "The form could not be read.", secure);

    if (path === `${DASHBOARD_PREFIX}/sign-in`) {
      return req.method === "POST" ? signIn(deps, visit, form) : signInPage(visit);
    }
    if (path === `${DASHBOARD_PREFIX}/setup`) {
      return req.method === "POST" ? setUp(deps, visit, form) : setupPage(deps, visit);
    }
    if (path === INVITE_PATH) return req.method === "POST" ? joinPost(deps, visit, form) : invitePage(deps, visit);
    const session = await services.operators.session(req, visit.now, limits, secure);
    if (!session) return redirect(`${DASHBOARD_PREFIX}/sign-in`, secure);
    if (req.method === "POST" && !await trustedPost(req, form, session.token, visit.origin)) {
      return messagePage(403, "Refused", "The form expired or came from another site. Reload the page.", secure);
    }
    if (path === `${DASHBOARD_PREFIX}/sign-out` && req.method === "POST") {
      return signOut(services.operators, visit, session.operator.email, session.token);
    }
    const ctx: PageContext = {
      ...visit,
      url,
      services,
      waiters: options.waiters,
      reveals,
      session,
      form,
      limiter,
      csrf: await csrfToken(session.token),
    };
    return await dispatch(ctx, path.slice(DASHBOARD_PREFIX.length) || "/");
  }

  return {
    async handle(req) {
      const url = new URL(req.url);
      const visit: Visit = { req, now: now(), origin: site ?? url.origin, address: address(req) };
      const secure = overHttps(visit);
      if (url.pathname !== DASHBOARD_PREFIX && !url.pathname.startsWith(`${DASHBOARD_PREFIX}/`)) {
        return messagePage(404, "Not found", "There is no such page.", secure);
      }
      try {
        return await serve(visit, url, secure);
      } catch (error) {
        if (isSvcError(error) && error.status === 429) return busy(error.headers ?? {}, secure);
        log("A dashboard page failed", error); // a storage failure: once a minute, with the fix
        const stored = storageError(error);
        if (stored) return storagePage(stored, secure);
        return messagePage(500, "Something went wrong", "The page failed; the cause is in the log.", secure);
      }
    },
  };
}

/** The answer when the database cannot take a write: 507 (disk full) or 503 (locked), with `Retry-After`. */
async function storagePage(error: SvcError, secure: boolean): Promise<Response> {
  const res = await messagePage(
    error.status,
    error.code === "STORAGE_FULL" ? "Storage full" : "Storage busy",
    `${error.message}. Nothing was changed; try again in a moment (the cause is in the log).`,
    secure,
  );
  for (const [name, value] of Object.entries(error.headers ?? {})) res.headers.set(name, value);
  return res;
}

/** The answer when too many password hashes wait (see `hash_gate.ts`): 429 with `Retry-After`. */
async function busy(headers: Record<string, string>, secure: boolean): Promise<Response> {
  const res = await messagePage(429, "Busy", "Too many sign-ins at once. Try again in a moment.", secure);
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

/** The answer to a form over {@linkcode FORM_LIMIT}: the connection closes, its body never read to the end. */
async function tooLarge(error: unknown, secure: boolean): Promise<Response> {
  if (!isSvcError(error) || error.status !== 413) throw error;
  const res = await messagePage(413, "Form too large", `A form may hold at most ${FORM_LIMIT / 1024} KiB.`, secure);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.headers.set(name, value);
  return res;
}

/** Finds the page of a path, checks the role, and loads the project of project pages. */
async function dispatch(ctx: PageContext, path: string): Promise<Response> {
  if (path === "/") return redirect(`${DASHBOARD_PREFIX}/projects`, overHttps(ctx));
  for (const page of PAGES) {
    const match = page.path.exec(path);
    if (!match || !page.methods.includes(ctx.req.method as "GET" | "POST")) continue;
    if (ctx.req.method === "POST" && page.admin && ctx.session.operator.role !== "admin") {
      return messagePage(403, "Refused", "Viewers can read but not change anything.", overHttps(ctx));
    }
    const params = decodedParams(match.slice(1));
    if (params === null) {
      return messagePage(400, "Bad request", "The address has a malformed % escape.", overHttps(ctx));
    }
    return await run(page, ctx, params);
  }
  return messagePage(404, "Not found", "There is no such page.", overHttps(ctx));
}

/** The path's parameters decoded, or `null` when one has a malformed `%` escape. */
function decodedParams(raw: string[]): string[] | null {
  try {
    return raw.map(decodeURIComponent);
  } catch {
    return null;
  }
}

async function run(page: Page, ctx: PageContext, params: string[]): Promise<Response> {
  if (!page.project) return page.handle(ctx, params);
  const project = await ctx.services.projects.find(params[0]);
  if (!project) return messagePage(404, "Not found", "There is no such project.", overHttps(ctx));
  return page.handle({ ...ctx, project } as ProjectContext, params.slice(1));
}
