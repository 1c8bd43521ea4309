/**
 * Projects: the list, "Create project", and the page that shows a new
 * sdkSecret once (after creation or rotation), which a reload no longer shows.
 *
 * @module
 */
import { html } from "hono/html";
import { field } from "./forms.ts";
import { dataTable, notice, time } from "./fragments.ts";
import { csrfField, layout } from "./layout.ts";
import { operatorActor, type PageContext, type ProjectContext } from "./page_context.ts";
import { htmlPage, redirect } from "./responses.ts";
import { overHttps } from "./visit.ts";

/** The longest project name. */
export const MAX_PROJECT_NAME = 100;

/**
 * The list of projects and, for admins, the create form.
 *
 * @param ctx The request.
 * @param problem A reason the last create was refused.
 * @returns The page.
 */
export async function projectsPage(ctx: PageContext, problem?: string): Promise<Response> {
  const projects = await ctx.services.projects.list();
  const rows = projects.map((p) =>
    html`
      <tr>
        <td><a href="/dashboard/projects/${p.id}">${p.name}</a></td>
        <td><code>${p.id}</code></td>
        <td>${time(p.createdAt)}</td>
      </tr>
    `
  );
  const create = ctx.session.operator.role === "admin"
    ? html`<h2>Create project</h2>
${problem ? notice("error", problem) : ""}
<form method="post" action="/dashboard/projects">
  ${csrfField(ctx)}
  <div class="field"><label for="name">Name</label>
    <input id="name" name="name" required maxlength="${MAX_PROJECT_NAME}"></div>
  <button type="submit">Create project</button>
</form>`
    : "";
  const body = html`${
    projects.length
      ? html`
        ${dataTable({ label: "Projects", columns: ["Name", "Project id", "Created"], rows: rows })}
      `
      : html`<p>No project yet.</p>`
  }
${create}`;
  return htmlPage(layout(ctx, { title: "Projects", section: "Projects", body }), overHttps(ctx), problem ? 400 : 200);
}

/**
 * Creates a project and redirects to the page that shows its secret once.
 *
 * @param ctx The request.
 * @returns The redirect, or the list with the reason.
 */
export async function createProjectPost(ctx: PageContext): Promise<Response> {
  const name = field(ctx.form, "name");
  if (name.length === 0 || name.length > MAX_PROJECT_NAME) {
    return projectsPage(ctx, `The name must have 1 to ${MAX_PROJECT_NAME} characters.`);
  }
  const { project, sdkSecret } = await ctx.services.projects.create(name, operatorActor(ctx));
  const reveal = ctx.reveals.put({ projectId: project.id, sdkSecret }, ctx.now);
  return redirect(`/dashboard/projects/${project.id}/secret?reveal=${reveal}`, overHttps(ctx));
}

/**
 * The new sdkSecret of a project, shown once.
 *
 * @param ctx The request (its `reveal` query parameter).
 * @returns The page: the secret the first time, a notice after.
 */
export function secretPage(ctx: ProjectContext): Promise<Response> {
  const reveal = ctx.reveals.take(ctx.url.searchParams.get("reveal") ?? "", ctx.project.id, ctx.now);
  const project = `/dashboard/projects/${ctx.project.id}`;
  const body = reveal
    ? html`
      ${notice("notice", "Copy the sdkSecret now: it will not be shown again. Only its hash is stored.")}
      <dl>
        <dt>projectId</dt>
        <dd><code>${ctx.project.id}</code></dd>
        <dt>sdkSecret</dt>
        <dd><code id="sdk-secret">${reveal.sdkSecret}</code></dd>
      </dl>
      <h2>Environment lines to paste</h2>
      <p>Put these in the app's environment (a secret store, or an <code>.env</code> file kept out of version control):</p>
      <pre id="environment" tabindex="0">${environmentLines(ctx.origin, ctx.project.id, reveal.sdkSecret)}</pre>
      <p>and give them to <code>createSvc</code>:</p>
      <pre id="cloud-config" tabindex="0">${CLOUD_CONFIG}</pre>
      <p>A rotation replaces the sdkSecret: the old one is refused from its next request on.</p>
      <p><a href="${project}">Go to the project</a></p>
    `
    : html`${notice("notice", "This secret was already shown and is not kept. Rotate the secret to get a new one.")}
<p><a href="${project}">Go to the project</a></p>`;
  return htmlPage(
    layout(ctx, { title: "Project secret", section: "Settings", project: ctx.project, body }),
    overHttps(ctx),
  );
}

/** The environment variables an app of the project reads (by the configuration {@linkcode CLOUD_CONFIG} shows). */
export const CLOUD_ENVIRONMENT = ["SVC_CLOUD_ENDPOINT", "SVC_PROJECT_ID", "SVC_SDK_SECRET"] as const;

/** How a hybrid app reads {@linkcode CLOUD_ENVIRONMENT} (the same on Node, Bun and Deno 2). */
const CLOUD_CONFIG = `cloud: {
  endpoint: process.env.SVC_CLOUD_ENDPOINT!,
  projectId: process.env.SVC_PROJECT_ID!,
  sdkSecret: process.env.SVC_SDK_SECRET!,
},`;

/**
 * The lines to paste into an app's environment: the cloud's public address, the project and its new sdkSecret.
 *
 * @param endpoint The cloud's address as browsers (and so apps) reach it.
 * @param projectId The project.
 * @param sdkSecret The plaintext sdkSecret, shown this once.
 * @returns One `NAME=value` line each.
 * @example
 * ```ts ignore
 * environmentLines("https://svc.example.com", "prj_01", "svcs_…");
 * ```
 */
export function environmentLines(endpoint: string, projectId: string, sdkSecret: string): string {
  const [endpointName, projectName, secretName] = CLOUD_ENVIRONMENT;
  return `${endpointName}=${endpoint}\n${projectName}=${projectId}\n${secretName}=${sdkSecret}\n`;
}
