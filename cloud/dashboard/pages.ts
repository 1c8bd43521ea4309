/**
 * Every signed-in page: its path below `/dashboard`, methods, whether posting
 * to it needs the admin role, and whether it belongs to a project (the first
 * path parameter is then the projectId).
 *
 * @module
 */
import type { PageContext, ProjectContext } from "./page_context.ts";
import { accountPage, totpConfirmPost, totpOffPost, totpStartPost } from "./account_page.ts";
import { auditPage } from "./audit_page.ts";
import { discardPost, inboxesPage, inboxPage } from "./inbox_page.ts";
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

type Method = "GET" | "POST";

/** A page of the dashboard. */
export type Page =
  & { path: RegExp; methods: Method[]; admin: boolean }
  & (
    | { project: false; handle(ctx: PageContext, params: string[]): Promise<Response> }
    | { project: true; handle(ctx: ProjectContext, params: string[]): Promise<Response> }
  );

const ID = "([^/]+)";
const P = `^/projects/${ID}`;

function get(path: string, handle: (ctx: PageContext) => Promise<Response>): Page {
  return { path: new RegExp(`${path}$`), methods: ["GET"], admin: false, project: false, handle };
}

function project(
  method: Method,
  path: string,
  handle: (ctx: ProjectContext, params: string[]) => Promise<Response>,
): Page {
  return { path: new RegExp(`${P}${path}$`), methods: [method], admin: method === "POST", project: true, handle };
}

function admin(path: string, handle: (ctx: PageContext, params: string[]) => Promise<Response>): Page {
  // The cloud's operators: only admins change them (their GET pages refuse viewers themselves).
  return { path: new RegExp(`${path}$`), methods: ["POST"], admin: true, project: false, handle };
}

function own(path: string, handle: (ctx: PageContext) => Promise<Response>): Page {
  // The operator's own account: any role may change it.
  return { path: new RegExp(`${path}$`), methods: ["POST"], admin: false, project: false, handle };
}

/** The pages, matched in order. */
export const PAGES: readonly Page[] = [
  get("^/projects", (ctx) => projectsPage(ctx)),
  { path: /^\/projects$/, methods: ["POST"], admin: true, project: false, handle: createProjectPost },
  get("^/audit", auditPage),
  get("^/account", accountPage),
  get("^/operators", (ctx) => operatorsPage(ctx)),
  admin("^/operators/invite", invitePost),
  { path: new RegExp(`^/operators/${ID}/role$`), methods: ["GET"], admin: false, project: false, handle: rolePage },
  admin(`^/operators/${ID}/role`, rolePost),
  { path: new RegExp(`^/operators/${ID}/remove$`), methods: ["GET"], admin: false, project: false, handle: removePage },
  admin(`^/operators/${ID}/remove`, removePost),
  own("^/account/totp/start", (ctx) => totpStartPost(ctx)),
  own("^/account/totp/confirm", totpConfirmPost),
  own("^/account/totp/off", totpOffPost),
  project("GET", "", overviewPage),
  project("GET", "/secret", secretPage),
  project("GET", "/keys", keysPage),
  // Before /keys/ID, which would take their names for an id.
  project("GET", "/keys/revoke-selected", revokeSelectedPage),
  project("POST", "/keys/revoke-selected", revokeSelectedPost),
  project("GET", "/keys/revoke-all", revokeAllPage),
  project("POST", "/keys/revoke-all", revokeAllPost),
  project("GET", `/keys/${ID}`, keyPage),
  project("GET", `/keys/${ID}/revoke`, revokeKeyPage),
  project("POST", `/keys/${ID}/revoke`, revokeKeyPost),
  project("GET", "/intents", intentsPage),
  project("GET", "/violations", violationsPage),
  project("GET", "/inbox", inboxesPage),
  project("GET", `/inbox/${ID}`, inboxPage),
  project("POST", `/inbox/${ID}/discard`, discardPost),
  project("GET", "/settings", (ctx) => settingsPage(ctx)),
  project("POST", "/settings/rename", renamePost),
  project("GET", "/settings/rotate", rotatePage),
  project("POST", "/settings/rotate", rotatePost),
  project("POST", "/settings/auto-revoke", autoRevokePost),
  project("POST", "/settings/auto-revoke/off", autoRevokeOffPost),
  project("POST", "/settings/retention", retentionPost),
  project("POST", "/settings/key-lifetime", keyLifetimePost),
  project("POST", "/settings/delete", deletePost),
  project("GET", "/audit", auditPage),
];
