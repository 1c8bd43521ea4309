/**
 * The page frame: header with the operator and sign-out, the project
 * navigation with its stable link names, and the main content.
 *
 * @module
 */
import { html } from "hono/html";
import { CSRF_FIELD } from "./csrf.ts";
import type { PageContext } from "./page_context.ts";
import type { Html } from "./responses.ts";
import type { ProjectRecord } from "../projects/mod.ts";

/** The sections of a project, in navigation order: link name and path below the project. */
export const PROJECT_SECTIONS = [
  ["Overview", ""],
  ["Keys", "/keys"],
  ["Intents", "/intents"],
  ["Violations", "/violations"],
  ["Approvals", "/approvals"],
  ["Activity", "/activity"],
  ["Inbox", "/inbox"],
  ["Settings", "/settings"],
  ["Audit log", "/audit"],
] as const;

/** A section's link name. */
export type Section = typeof PROJECT_SECTIONS[number][0] | "Projects" | "Account" | "Operators";

/** What a page puts in the frame. */
export interface Frame {
  /** The `<title>` and `<h1>`. */
  title: string;
  /** The current section. */
  section: Section;
  /** The project, for its navigation. */
  project?: ProjectRecord;
  /** The content below the heading. */
  body: Html;
}

/**
 * A whole signed-in document.
 *
 * @param ctx The request.
 * @param frame Title, section, project and content.
 * @returns The document.
 */
export function layout(ctx: PageContext, frame: Frame): Html {
  const current = (name: Section) =>
    name === frame.section
      ? html`
        aria-current="page"
      `
      : "";
  const base = frame.project ? `/dashboard/projects/${encodeURIComponent(frame.project.id)}` : "";
  const links = frame.project
    ? PROJECT_SECTIONS.map(([name, path]) => html`<li><a href="${base}${path}" ${current(name)}>${name}</a></li>`)
    : [
      html`<li><a href="/dashboard/audit" ${current("Audit log")}>Audit log</a></li>`,
      ctx.session.operator.role === "admin"
        ? html`<li><a href="/dashboard/operators" ${current("Operators")}>Operators</a></li>`
        : "",
    ];
  return document(
    frame.project ? `${frame.title} · ${frame.project.name}` : frame.title,
    html`<header>
  <span class="brand">svc cloud</span>
  <a href="/dashboard/account" ${current("Account")}>${ctx.session.operator.email}</a>
  <span>(${ctx.session.operator.role})</span>
  <form method="post" action="/dashboard/sign-out">
    ${csrfField(ctx)}
    <button type="submit" class="plain">Sign out</button>
  </form>
</header>
<nav aria-label="Main">
  <ul>
    <li><a href="/dashboard/projects" ${current("Projects")}>Projects</a></li>
    ${links}
  </ul>
</nav>
<main>
  ${
      frame.project
        ? html`<p class="muted">Project <strong>${frame.project.name}</strong> <code>${frame.project.id}</code></p>`
        : ""
    }
  <h1>${frame.title}</h1>
  ${frame.body}
</main>`,
  );
}

/**
 * A document with the stylesheet.
 *
 * @param title The `<title>`.
 * @param body The body's content.
 * @returns The document.
 */
export function document(title: string, body: Html): Html {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title} · svc cloud</title>
        <link rel="stylesheet" href="/dashboard/style.css">
      </head>
      <body>
    ${body}
      </body>
    </html>
  `;
}

/**
 * The hidden CSRF field of a form.
 *
 * @param ctx The request.
 * @returns The field.
 */
export function csrfField(ctx: { csrf: string }): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}">`;
}
