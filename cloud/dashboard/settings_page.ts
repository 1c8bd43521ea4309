/**
 * A project's settings: rename; "Rotate secret" behind a confirmation, the
 * new sdkSecret shown once; the auto-revoke policy; the key lifetimes; the retention of
 * acknowledged inbox items; delete behind typing the project's name. Every
 * change goes through what the command line and `/v1/sdk/policy` use, and so
 * to the audit log.
 *
 * @module
 */
import { html } from "hono/html";
import { MAX_RETENTION_DAYS } from "../violations/mod.ts";
import { policyFields, readPolicyForm } from "./auto_revoke_form.ts";
import { autoRevokeInWords, keyLifetimeInWords } from "../violations/mod.ts";
import { keyLifetimeFields, readKeyLifetimeForm } from "./key_lifetime_form.ts";
import { rotationCutOff } from "./connected_apps.ts";
import { field } from "./forms.ts";
import { messagePage, notice } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { operatorActor, type ProjectContext } from "./page_context.ts";
import { MAX_PROJECT_NAME } from "./projects_page.ts";
import { type Html, htmlPage, redirect } from "./responses.ts";
import { overHttps } from "./visit.ts";

const DONE: Record<string, string> = {
  renamed: "The project is renamed.",
  "auto-revoke": "The auto-revoke policy is saved.",
  "auto-revoke-off": "Auto-revoke is off.",
  retention: "The retention is saved.",
  "key-lifetime": "The key lifetimes are saved.",
};

/**
 * The settings page.
 *
 * @param ctx The request.
 * @param problem A reason the last change was refused.
 * @returns The page.
 */
export async function settingsPage(ctx: ProjectContext, problem?: string): Promise<Response> {
  const policy = await ctx.services.violations.policy(ctx.project.id);
  const base = `/dashboard/projects/${ctx.project.id}/settings`;
  const done = DONE[ctx.url.searchParams.get("done") ?? ""];
  const admin = ctx.session.operator.role === "admin";
  const submit = (label: string, danger = false): Html =>
    html`
      <button type="submit" ${danger
        ? html`
          class="danger"
        `
        : ""}${admin ? "" : html`
        disabled
      `}>${label}</button>
    `;
  const body = html`${problem ? notice("error", problem) : ""}${done ? notice("success", done) : ""}
<h2>Name</h2>
<form method="post" action="${base}/rename">${csrfField(ctx)}
  <div class="field"><label for="name">Name</label>
    <input id="name" name="name" value="${ctx.project.name}" required maxlength="${MAX_PROJECT_NAME}"></div>
  ${submit("Rename")}
</form>
<h2>sdkSecret</h2>
<p>Last rotated: ${ctx.project.secretRotatedAt ?? "never"}.</p>
<form method="get" action="${base}/rotate">${submit("Rotate secret", true)}</form>
<h2>Auto-revoke</h2>
<p id="auto-revoke-state">${autoRevokeInWords(policy.autoRevoke)}</p>
<form method="post" action="${base}/auto-revoke">${csrfField(ctx)}
  ${policyFields(policy.autoRevoke)}
  ${submit("Save auto-revoke")}
</form>
${
    policy.autoRevoke === null ? "" : html`<form method="post" action="${base}/auto-revoke/off">${csrfField(ctx)}
  ${submit("Turn auto-revoke off")}
</form>`
  }
<h2>Key lifetime</h2>
<p id="key-lifetime-state">Now: ${keyLifetimeInWords(policy.keyLifetime)}. A key minted without a lifetime gets the
default; no key may live longer than the longest. Empty: none. Keys minted before keep their expiry.</p>
<form method="post" action="${base}/key-lifetime">${csrfField(ctx)}
  ${keyLifetimeFields(policy.keyLifetime)}
  ${submit("Save key lifetimes")}
</form>
<h2>Retention</h2>
<p>How long acknowledged inbox items and their events are kept. Empty: the server's default.</p>
<form method="post" action="${base}/retention">${csrfField(ctx)}
  <div class="field"><label for="retention">Retention in days</label>
    <input id="retention" name="days" type="number" min="1" max="${MAX_RETENTION_DAYS}"
      value="${policy.retentionDays === null ? "" : String(policy.retentionDays)}"></div>
  ${submit("Save retention")}
</form>
<h2>Delete</h2>
<p>Deletes the project with its keys, manifest, violations and events. The audit log keeps its entries.</p>
<form method="post" action="${base}/delete">${csrfField(ctx)}
  <div class="field"><label for="confirm-name">Type the project name to delete it</label>
    <input id="confirm-name" name="confirm" autocomplete="off" required></div>
  ${submit("Delete project", true)}
</form>`;
  return htmlPage(
    layout(ctx, { title: "Settings", section: "Settings", project: ctx.project, body }),
    overHttps(ctx),
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
  if (!await ctx.services.projects.rename(ctx.project.id, name, operatorActor(ctx))) return gone(ctx);
  return done(ctx, "renamed");
}

/**
 * The confirmation before rotating the sdkSecret.
 *
 * @param ctx The request.
 * @returns The page.
 */
export async function rotatePage(ctx: ProjectContext): Promise<Response> {
  const base = `/dashboard/projects/${ctx.project.id}/settings`;
  const apps = await ctx.services.apps.list(ctx.project.id);
  const body = html`<p>Replace the sdkSecret of <strong>${ctx.project.name}</strong>? The current secret is refused
from the next request on: every app using it stops reaching the cloud until it is given the new one.</p>
${rotationCutOff(apps)}
<form method="post" action="${base}/rotate">${csrfField(ctx)}
  <button type="submit" class="danger">Rotate secret</button>
  <a href="${base}">Cancel</a>
</form>`;
  return await htmlPage(
    layout(ctx, { title: "Rotate secret", section: "Settings", project: ctx.project, body }),
    overHttps(ctx),
  );
}

/**
 * Rotates the sdkSecret and redirects to the page that shows the new one once.
 *
 * @param ctx The request.
 * @returns The redirect.
 */
export async function rotatePost(ctx: ProjectContext): Promise<Response> {
  const sdkSecret = await ctx.services.projects.rotateSecret(ctx.project.id, operatorActor(ctx));
  if (sdkSecret === null) return gone(ctx);
  const reveal = ctx.reveals.put({ projectId: ctx.project.id, sdkSecret }, ctx.now);
  return redirect(`/dashboard/projects/${ctx.project.id}/secret?reveal=${reveal}`, overHttps(ctx));
}

/**
 * Sets the auto-revoke policy.
 *
 * @param ctx The request (`threshold`, `windowMinutes`, `kinds`, `severities` fields).
 * @returns A redirect to the settings, or the page with the reason.
 */
export async function autoRevokePost(ctx: ProjectContext): Promise<Response> {
  const read = readPolicyForm(ctx.form);
  if ("problem" in read) return settingsPage(ctx, read.problem);
  if (!await ctx.services.violations.changePolicy(ctx.project.id, { autoRevoke: read.policy }, operatorActor(ctx))) {
    return gone(ctx);
  }
  return done(ctx, "auto-revoke");
}

/**
 * Turns auto-revoke off.
 *
 * @param ctx The request.
 * @returns A redirect to the settings.
 */
export async function autoRevokeOffPost(ctx: ProjectContext): Promise<Response> {
  if (!await ctx.services.violations.changePolicy(ctx.project.id, { autoRevoke: null }, operatorActor(ctx))) {
    return gone(ctx);
  }
  return done(ctx, "auto-revoke-off");
}

/**
 * Sets or clears the key lifetime policy.
 *
 * @param ctx The request (`defaultDays`, `maxDays`, each empty for none).
 * @returns A redirect to the settings, or the page with the reason.
 */
export async function keyLifetimePost(ctx: ProjectContext): Promise<Response> {
  const read = readKeyLifetimeForm(ctx.form);
  if ("problem" in read) return settingsPage(ctx, read.problem);
  const change = { keyLifetime: read.keyLifetime };
  if (!await ctx.services.violations.changePolicy(ctx.project.id, change, operatorActor(ctx))) return gone(ctx);
  return done(ctx, "key-lifetime");
}

/**
 * Sets or clears the retention.
 *
 * @param ctx The request (`days` field, empty for the default).
 * @returns A redirect to the settings, or the page with the reason.
 */
export async function retentionPost(ctx: ProjectContext): Promise<Response> {
  const days = field(ctx.form, "days");
  const value = days === "" ? null : /^\d{1,4}$/.test(days) ? Number(days) : NaN;
  if (value !== null && !(value >= 1 && value <= MAX_RETENTION_DAYS)) {
    return settingsPage(ctx, `The retention must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or empty.`);
  }
  if (!await ctx.services.violations.changePolicy(ctx.project.id, { retentionDays: value }, operatorActor(ctx))) {
    return gone(ctx);
  }
  return done(ctx, "retention");
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
  if (!await ctx.services.projects.delete(ctx.project.id, operatorActor(ctx))) return gone(ctx);
  return redirect("/dashboard/projects", overHttps(ctx));
}

/** The settings again, with what was done. */
function done(ctx: ProjectContext, what: keyof typeof DONE): Response {
  return redirect(`/dashboard/projects/${ctx.project.id}/settings?done=${what}`, overHttps(ctx));
}

/** The project went away while the form was filled in. */
function gone(ctx: ProjectContext): Promise<Response> {
  return messagePage(404, "Not found", "There is no such project.", overHttps(ctx));
}
