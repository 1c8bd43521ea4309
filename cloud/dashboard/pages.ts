/**
 * The dashboard's route table: every page and form post a row of the one route kind (`core/http`'s `Route`, as
 * `/svc` and `/v1`), with its full path, its auth kind (see `dashboard_side.ts`) and an HTML answer. Rows of a
 * project load it from the first path parameter (`:projectId`). Matched in order.
 *
 * @module
 */
import type { Method, Route } from "../../core/http/mod.ts";
import type { PageContext, ProjectContext } from "./page_context.ts";
import { accountPage, totpConfirmPost, totpOffPost, totpStartPost } from "./account_page.ts";
import { auditPage } from "./audit_page.ts";
import { discardPost, inboxesPage, inboxPage, redrivePost, replayPost } from "./inbox_page.ts";
import { approvalsPage } from "./approvals_page.ts";
import { intentsPage } from "./intents_page.ts";
import { keysPage, revokeKeyPage, revokeKeyPost } from "./keys_page.ts";
import { keyPage } from "./key_page.ts";
import { revokeAllPage, revokeAllPost, revokeSelectedPage, revokeSelectedPost } from "./bulk_revoke_pages.ts";
import { overviewPage } from "./overview_page.ts";
import { invitePost, operatorsPage, removePage, removePost, rolePage, rolePost } from "./operators_page.ts";
import { createProjectPost, projectsPage, secretPage } from "./projects_page.ts";
import {
  autoRevokeOffPost,
  autoRevokePost,
  deletePost,
  keyLifetimePost,
  renamePost,
  retentionPost,
  rotatePage,
  rotatePost,
  settingsPage,
} from "./settings_page.ts";
import { violationsPage } from "./violations_page.ts";
import { activityPage } from "./activity_page.ts";

import { type DashboardSide, defineDashboardRoute, type Visitor } from "./dashboard_side.ts";
import { messagePage } from "./fragments.ts";
import { failurePage } from "./page_failures.ts";
import { asset, redirect } from "./responses.ts";
import { setUp, setupPage, type SignedOutDeps, signIn, signInPage, signOut } from "./signed_out.ts";
import { invitePage, joinPost } from "./invite_page.ts";
import { INVITE_PATH } from "../operators/mod.ts";
import { STYLESHEET } from "./style.ts";
import { overHttps } from "./visit.ts";

/** A row of the dashboard. */
export type DashboardRoute = Route<DashboardSide>;

/** The media type of the dashboard's answers. */
const HTML = "text/html; charset=utf-8";
/** A page, or a redirect after a form. */
const RESPONSES = { 200: null, 303: null };
const D = "/dashboard";
const P = `${D}/projects/:projectId`;

/** Runs a page, turning what it throws into the failure page (429, 507, 503, 500). */
async function guarded(
  page: () => Promise<Response>,
  deps: Pick<DashboardSide["deps"], "log">,
  secure: boolean,
): Promise<Response> {
  try {
    return await page();
  } catch (error) {
    return await failurePage(error, deps.log, secure);
  }
}

/** A signed-out row: the sign-in, setup and invite pages and their forms. */
function visitor(
  method: Method,
  path: string,
  summary: string,
  handle: (caller: Visitor, deps: DashboardSide["deps"]) => Promise<Response>,
): DashboardRoute {
  return defineDashboardRoute({
    method,
    path,
    auth: "visitor",
    summary,
    mediaType: HTML,
    responses: RESPONSES,
    run: ({ caller }, deps) => guarded(() => handle(caller, deps), deps, overHttps(caller.visit)),
  });
}

/** A signed-in row; posts need the admin role when `auth` is `admin`. */
function page(
  method: Method,
  path: string,
  auth: "operator" | "admin",
  summary: string,
  handle: (ctx: PageContext, params: string[]) => Promise<Response>,
): DashboardRoute {
  return defineDashboardRoute({
    method,
    path,
    auth,
    summary,
    mediaType: HTML,
    responses: RESPONSES,
    run: ({ caller, params }, deps) => guarded(() => handle(caller, Object.values(params)), deps, overHttps(caller)),
  });
}

/** A signed-in row of one project: a GET for any operator, a POST for admins. */
function project(
  method: Method,
  path: string,
  summary: string,
  handle: (ctx: ProjectContext, params: string[]) => Promise<Response>,
): DashboardRoute {
  return page(method, `${P}${path}`, method === "POST" ? "admin" : "operator", summary, async (ctx, params) => {
    const found = await ctx.services.projects.find(params[0]);
    if (!found) return messagePage(404, "Not found", "There is no such project.", overHttps(ctx));
    return handle({ ...ctx, project: found }, params.slice(1));
  });
}

const toProjects = (ctx: PageContext) => Promise.resolve(redirect(`${D}/projects`, overHttps(ctx)));

/** The dashboard's rows, matched in order. */
export const DASHBOARD_ROUTES: readonly DashboardRoute[] = [
  defineDashboardRoute({
    method: "GET",
    path: `${D}/style.css`,
    auth: "none",
    summary: "The dashboard's stylesheet",
    mediaType: "text/css; charset=utf-8",
    responses: { 200: null },
    run: ({ req }, deps) =>
      Promise.resolve(
        asset(STYLESHEET, "text/css; charset=utf-8", overHttps({ origin: deps.site ?? new URL(req.url).origin })),
      ),
  }),
  visitor("GET", `${D}/sign-in`, "The sign-in page", ({ visit }) => signInPage(visit)),
  visitor("POST", `${D}/sign-in`, "Sign in", ({ visit, form }, deps) => signIn(signedOut(deps), visit, form)),
  visitor("GET", `${D}/setup`, "The first-run setup page", ({ visit }, deps) => setupPage(signedOut(deps), visit)),
  visitor(
    "POST",
    `${D}/setup`,
    "Create the first admin",
    ({ visit, form }, deps) => setUp(signedOut(deps), visit, form),
  ),
  visitor("GET", INVITE_PATH, "The page of an invite link", ({ visit }, deps) => invitePage(signedOut(deps), visit)),
  visitor("POST", INVITE_PATH, "Join by an invite", ({ visit, form }, deps) => joinPost(signedOut(deps), visit, form)),
  page(
    "POST",
    `${D}/sign-out`,
    "operator",
    "Sign out",
    (ctx) => signOut(ctx.services.operators, ctx, ctx.session.operator.email, ctx.session.token),
  ),
  page("GET", D, "operator", "The dashboard: its projects", toProjects),
  page("GET", `${D}/`, "operator", "The dashboard: its projects", toProjects),
  page("GET", `${D}/projects`, "operator", "The projects", (ctx) => projectsPage(ctx)),
  page("POST", `${D}/projects`, "admin", "Create a project", createProjectPost),
  page("GET", `${D}/audit`, "operator", "The audit log", auditPage),
  page("GET", `${D}/account`, "operator", "The operator's account", accountPage),
  page("GET", `${D}/operators`, "operator", "The operators", (ctx) => operatorsPage(ctx)),
  // The cloud's operators: only admins change them (their GET pages refuse viewers themselves).
  page("POST", `${D}/operators/invite`, "admin", "Invite an operator", invitePost),
  page("GET", `${D}/operators/:id/role`, "operator", "Change an operator's role", rolePage),
  page("POST", `${D}/operators/:id/role`, "admin", "Change an operator's role", rolePost),
  page("GET", `${D}/operators/:id/remove`, "operator", "Remove an operator", removePage),
  page("POST", `${D}/operators/:id/remove`, "admin", "Remove an operator", removePost),
  // The operator's own account: any role may change it.
  page("POST", `${D}/account/totp/start`, "operator", "Start two-factor sign-in", (ctx) => totpStartPost(ctx)),
  page("POST", `${D}/account/totp/confirm`, "operator", "Confirm two-factor sign-in", totpConfirmPost),
  page("POST", `${D}/account/totp/off`, "operator", "Turn two-factor sign-in off", totpOffPost),
  project("GET", "", "A project's overview", overviewPage),
  project("GET", "/secret", "A new project's secret, shown once", secretPage),
  project("GET", "/keys", "A project's keys", keysPage),
  // Before /keys/:id, which would take their names for an id.
  project("GET", "/keys/revoke-selected", "Confirm revoking the selected keys", revokeSelectedPage),
  project("POST", "/keys/revoke-selected", "Revoke the selected keys", revokeSelectedPost),
  project("GET", "/keys/revoke-all", "Confirm revoking every key", revokeAllPage),
  project("POST", "/keys/revoke-all", "Revoke every key", revokeAllPost),
  project("GET", "/keys/:id", "A key", keyPage),
  project("GET", "/keys/:id/revoke", "Confirm revoking a key", revokeKeyPage),
  project("POST", "/keys/:id/revoke", "Revoke a key", revokeKeyPost),
  project("GET", "/intents", "A project's intents", intentsPage),
  project("GET", "/violations", "A project's violations", violationsPage),
  project("GET", "/approvals", "A project's approvals, read-only", approvalsPage),
  project("GET", "/activity", "A project's activity: what agents did", activityPage),
  project("GET", "/inbox", "A project's inboxes", inboxesPage),
  project("GET", "/inbox/:id", "An inbox", inboxPage),
  project("POST", "/inbox/:id/discard", "Discard an inbox item", discardPost),
  project("POST", "/inbox/:id/redrive", "Redrive an inbox's dead letters", redrivePost),
  project("POST", "/inbox/:id/replay", "Replay an inbox's acknowledged items", replayPost),
  project("GET", "/settings", "A project's settings", (ctx) => settingsPage(ctx)),
  project("POST", "/settings/rename", "Rename a project", renamePost),
  project("GET", "/settings/rotate", "Confirm rotating the SDK secret", rotatePage),
  project("POST", "/settings/rotate", "Rotate the SDK secret", rotatePost),
  project("POST", "/settings/auto-revoke", "Set the auto-revoke policy", autoRevokePost),
  project("POST", "/settings/auto-revoke/off", "Turn auto-revoke off", autoRevokeOffPost),
  project("POST", "/settings/retention", "Set violation retention", retentionPost),
  project("POST", "/settings/key-lifetime", "Set the key lifetimes", keyLifetimePost),
  project("POST", "/settings/delete", "Delete a project", deletePost),
  project("GET", "/audit", "A project's audit log", auditPage),
];

/** What the signed-out pages need, from the dashboard's deps. */
function signedOut(deps: DashboardSide["deps"]): SignedOutDeps {
  return { operators: deps.services.operators, limiter: deps.limiter, limits: deps.limits };
}
