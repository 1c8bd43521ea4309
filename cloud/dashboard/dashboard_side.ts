/**
 * The dashboard as a side of the one route kind (`core/http`'s `Route`, as `/svc` and `/v1`): its auth kinds and
 * what each yields, the services its rows are given, and the authenticators (form, session, CSRF and role), so the
 * one dispatcher serves its pages and form posts.
 *
 * @module
 */
import { type DefineRoute, routeDefiner } from "../../core/http/mod.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import type { InboxWaiters } from "../feed/mod.ts";
import type { SessionLimits, SignInLimiter } from "../operators/mod.ts";
import type { DashboardServices } from "./dashboard_deps.ts";
import { csrfToken, trustedPost } from "./csrf.ts";
import { messagePage } from "./fragments.ts";
import { readForm } from "./forms.ts";
import type { PageContext } from "./page_context.ts";
import { redirect } from "./responses.ts";
import type { Reveals } from "./reveals.ts";
import { overHttps, type Visit } from "./visit.ts";

/** What every dashboard row is given. */
export interface DashboardDeps {
  /** The features' services. */
  services: DashboardServices;
  /** Long-poll wake-ups: a revoke here wakes the revocation feed at once. */
  waiters: InboxWaiters;
  /** Secrets waiting to be shown once. */
  reveals: Reveals;
  /** Counts failed sign-ins and second-factor checks. */
  limiter: SignInLimiter;
  /** Session lifetimes. */
  limits: SessionLimits;
  /** The clock, in milliseconds. */
  now: () => number;
  /** The origin browsers post from (the public URL's), or `null` for the request's own. */
  site: string | null;
  /** The client's address. */
  address: (req: Request) => string | null;
  /** Where causes of failures go. */
  log: ErrorLogger;
}

/** A signed-out request: the visit and its posted form (empty for a GET). */
export interface Visitor {
  /** The request and what follows from it. */
  visit: Visit;
  /** The posted form. */
  form: URLSearchParams;
}

/**
 * The dashboard's auth kinds: `none` (the stylesheet), `visitor` (sign-in, setup, invite: signed out, their forms
 * carry the pre-session CSRF token), `operator` (a session; a post also its CSRF token) and `admin` (an operator
 * with the admin role, for posts that change the cloud).
 */
export interface DashboardSide {
  /** What each auth kind yields. */
  callers: { none: null; visitor: Visitor; operator: PageContext; admin: PageContext };
  /** What every row is given. */
  deps: DashboardDeps;
}

/** The auth kinds of the dashboard's rows. */
export type DashboardAuth = keyof DashboardSide["callers"];

/** Declares a row of the dashboard. */
export const defineDashboardRoute: DefineRoute<DashboardSide> = routeDefiner<DashboardSide>();

/** A refusal that is already a page (a redirect to sign-in, a 403, a 400): thrown, answered as it is. */
export class PageRefusal extends Error {
  /** The answer. */
  readonly answer: Promise<Response>;

  /** @param answer The page or redirect to answer with. */
  constructor(answer: Response | Promise<Response>) {
    super("The dashboard refused the request");
    this.answer = Promise.resolve(answer);
  }
}

/**
 * The visit of a request: its time, origin and address.
 *
 * @param req The request.
 * @param deps The clock, public origin and address reader.
 * @returns The visit.
 */
export function visitOf(req: Request, deps: Pick<DashboardDeps, "now" | "site" | "address">): Visit {
  return { req, now: deps.now(), origin: deps.site ?? new URL(req.url).origin, address: deps.address(req) };
}

/** The form of a post (413 and 400 pages before anything else), empty for a GET. */
async function formOf(visit: Visit): Promise<URLSearchParams> {
  if (visit.req.method !== "POST") return new URLSearchParams();
  const form = await readForm(visit.req); // over the limit: SvcError 413, answered as a page
  if (form === null) {
    throw new PageRefusal(messagePage(400, "Bad request", "The form could not be read.", overHttps(visit)));
  }
  return form;
}

/**
 * The `visitor` auth kind: anyone; a post's form is read.
 *
 * @param req The request.
 * @param deps The dashboard's deps.
 * @returns The visit and its form.
 */
export async function authenticateVisitor(req: Request, deps: DashboardDeps): Promise<Visitor> {
  const visit = visitOf(req, deps);
  return { visit, form: await formOf(visit) };
}

/**
 * The `operator` auth kind: a live session (else a redirect to sign-in), and on a post the form's CSRF token and
 * the browser's same-site signals (else 403).
 *
 * @param req The request.
 * @param deps The dashboard's deps.
 * @returns The page context of the signed-in operator.
 */
export async function authenticateOperator(req: Request, deps: DashboardDeps): Promise<PageContext> {
  const visit = visitOf(req, deps);
  const secure = overHttps(visit);
  const form = await formOf(visit);
  const session = await deps.services.operators.session(req, visit.now, deps.limits, secure);
  if (!session) throw new PageRefusal(redirect("/dashboard/sign-in", secure));
  if (req.method === "POST" && !await trustedPost(req, form, session.token, visit.origin)) {
    throw new PageRefusal(
      messagePage(403, "Refused", "The form expired or came from another site. Reload the page.", secure),
    );
  }
  return {
    ...visit,
    url: new URL(req.url),
    services: deps.services,
    waiters: deps.waiters,
    reveals: deps.reveals,
    session,
    form,
    limiter: deps.limiter,
    csrf: await csrfToken(session.token),
  };
}

/**
 * The `admin` auth kind: an operator (see {@linkcode authenticateOperator}) with the admin role (else 403).
 *
 * @param req The request.
 * @param deps The dashboard's deps.
 * @returns The page context of the signed-in admin.
 */
export async function authenticateAdmin(req: Request, deps: DashboardDeps): Promise<PageContext> {
  const ctx = await authenticateOperator(req, deps);
  if (ctx.session.operator.role !== "admin") {
    throw new PageRefusal(messagePage(403, "Refused", "Viewers can read but not change anything.", overHttps(ctx)));
  }
  return ctx;
}
