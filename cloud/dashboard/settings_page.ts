/**
 * A project's settings: rename; "Rotate secret" behind a confirmation, the
 * new sdkSecret shown once; the retention of acknowledged inbox items; delete
 * behind typing the project's name. Every change goes to the audit log.
 *
 * @module
 */
import { html } from "hono/html";
import { rotateSdkSecret } from "../projects.ts";
import { field } from "./forms.ts";
import { messagePage, notice } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { audit, type ProjectContext } from "./page_context.ts";
import { MAX_PROJECT_NAME } from "./projects_page.ts";
import { htmlPage, redirect } from "./responses.ts";

const DAY_MS = 86_400_000;
/** The longest retention an operator may set: 10 years. */
const MAX_RETENTION_DAYS = 3650;

const DONE: Record<string, string> = {
  renamed: "The project is renamed.",
  retention: "The retention is saved.",
};

/**
 * The settings page.
 *
 * @param ctx The request.
 * @param problem A reason the last change was refused.
 * @returns The page.
 */
export async function settingsPage(ctx: ProjectContext, problem?: string): Promise<Response> {
  const retention = await ctx.storage.projectRetention(ctx.project.id);
  const base = `/dashboard/projects/${ctx.project.id}/settings`;
  const done = DONE[ctx.url.searchParams.get("done") ?? ""];
  const admin = ctx.session.operator.role === "admin";
  const body = html`${problem ? notice("error", problem) : ""}${done ? notice("success", done) : ""}
<h2>Name</h2>
<form method="post" action="${base}/rename">${csrfField(ctx)}
  <div class="field"><label for="name">Name</label>
    <input id="name" name="name" value="${ctx.project.name}" required maxlength="${MAX_PROJECT_NAME}"></div>
  <button type="submit"${
    admin ? "" : html`
      disabled
    `
  }>Rename</button>
</form>
<h2>sdkSecret</h2>
<p>Last rotated: ${ctx.project.secretRotatedAt ?? "never"}.</p>
${admin ? html`<p><a href="${base}/rotate">Rotate secret</a></p>` : ""}
<h2>Retention</h2>
<p>How long acknowledged inbox items and their events are kept. Empty: the server's default.</p>
<form method="post" action="${base}/retention">${csrfField(ctx)}
  <div class="field"><label for="retention">Retention in days</label>
    <input id="retention" name="days" type="number" min="0" max="${MAX_RETENTION_DAYS}"
      value="${retention === null ? "" : String(retention / DAY_MS)}"></div>
  <button type="submit"${
    admin ? "" : html`
      disabled
    `
  }>Save retention</button>
</form>
<h2>Delete</h2>
<p>Deletes the project with its keys, manifest, violations and events. The audit log keeps its entries.</p>
<form method="post" action="${base}/delete">${csrfField(ctx)}
  <div class="field"><label for="confirm-name">Type the project name to delete it</label>
    <input id="confirm-name" name="confirm" autocomplete="off" required></div>
  <button type="submit" class="danger"${
    admin ? "" : html`
      disabled
    `
  }>Delete project</button>
</form>`;
  return htmlPage(
    layout(ctx, { title: "Settings", section: "Settings", project: ctx.project, body }),
    ctx.secure,
    problem ? 400 : 200,
  );
}

/**
 * Renames the project.
 *
 * @param ctx The request (`name` field).
 * @returns A redirect to the settings, or the page with the reason.
 */
export async function renamePost(ctx: ProjectContext): Promise<Response> {
  const name = field(ctx.form, "name");
  if (name.length === 0 || name.length > MAX_PROJECT_NAME) {
    return settingsPage(ctx, `The name must have 1 to ${MAX_PROJECT_NAME} characters.`);
  }
  await ctx.storage.renameProject(ctx.project.id, name);
  await audit(ctx, ctx.project.id, "project.rename", ctx.project.id, { from: ctx.project.name, to: name });
  return redirect(`/dashboard/projects/${ctx.project.id}/settings?done=renamed`, ctx.secure);
}

/**
 * The confirmation before rotating the sdkSecret.
 *
 * @param ctx The request.
 * @returns The page.
 */
export function rotatePage(ctx: ProjectContext): Promise<Response> {
  const base = `/dashboard/projects/${ctx.project.id}/settings`;
  const body = html`<p>Replace the sdkSecret of <strong>${ctx.project.name}</strong>? The current secret is refused
from the next request on: every app using it stops reaching the cloud until it is given the new one.</p>
<form method="post" action="${base}/rotate">${csrfField(ctx)}
  <button type="submit" class="danger">Rotate secret</button>
  <a href="${base}">Cancel</a>
</form>`;
  return htmlPage(
    layout(ctx, { title: "Rotate secret", section: "Settings", project: ctx.project, body }),
    ctx.secure,
  );
}

/**
 * Rotates the sdkSecret and redirects to the page that shows the new one once.
 *
 * @param ctx The request.
 * @returns The redirect.
 */
export async function rotatePost(ctx: ProjectContext): Promise<Response> {
  const sdkSecret = await rotateSdkSecret(ctx.storage, ctx.project.id);
  if (sdkSecret === null) return messagePage(404, "Not found", "There is no such project.", ctx.secure);
  await audit(ctx, ctx.project.id, "project.rotate_secret", ctx.project.id);
  const reveal = ctx.reveals.put({ projectId: ctx.project.id, sdkSecret }, ctx.now);
  return redirect(`/dashboard/projects/${ctx.project.id}/secret?reveal=${reveal}`, ctx.secure);
}

/**
 * Sets or clears the retention.
 *
 * @param ctx The request (`days` field, empty for the default).
 * @returns A redirect to the settings, or the page with the reason.
 */
export async function retentionPost(ctx: ProjectContext): Promise<Response> {
  const days = field(ctx.form, "days");
  const value = days === "" ? null : Number(days);
  if (value !== null && (!Number.isFinite(value) || value < 0 || value > MAX_RETENTION_DAYS)) {
    return settingsPage(ctx, `The retention must be 0 to ${MAX_RETENTION_DAYS} days, or empty.`);
  }
  const retentionMs = value === null ? null : Math.round(value * DAY_MS);
  await ctx.storage.setProjectRetention(ctx.project.id, retentionMs, new Date(ctx.now).toISOString());
  await audit(ctx, ctx.project.id, "project.retention", ctx.project.id, { retentionMs });
  return redirect(`/dashboard/projects/${ctx.project.id}/settings?done=retention`, ctx.secure);
}

/**
 * Deletes the project when the typed name matches.
 *
 * @param ctx The request (`confirm` field).
 * @returns A redirect to the projects, or the page with the reason.
 */
export async function deletePost(ctx: ProjectContext): Promise<Response> {
  if (field(ctx.form, "confirm") !== ctx.project.name) {
    return settingsPage(ctx, "The typed name does not match the project's name; nothing was deleted.");
  }
  await ctx.storage.deleteProject(ctx.project.id);
  await audit(ctx, ctx.project.id, "project.delete", ctx.project.id, { name: ctx.project.name });
  return redirect("/dashboard/projects", ctx.secure);
}
