/**
 * A project's uploaded intent manifest: each intent's name, title, required
 * scopes, input and output schema; the scopes the application allows; when it
 * was uploaded.
 *
 * @module
 */
import { html } from "hono/html";
import { time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { ProjectContext } from "./page_context.ts";
import { htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/**
 * The intents page.
 *
 * @param ctx The request.
 * @returns The page.
 */
export async function intentsPage(ctx: ProjectContext): Promise<Response> {
  const manifest = await ctx.services.projects.manifest(ctx.project.id);
  const intents = manifest.intents.map((i) =>
    html`
      <section aria-labelledby="intent-${i.name}">
        <h2 id="intent-${i.name}"><code>${i.name}</code>: ${i.title}</h2>
        <p>Required scopes: ${i.requiredScopes.length ? i.requiredScopes.join(", ") : "none"}</p>
        <details>
          <summary>Input schema of ${i.name}</summary>
          <pre>${JSON.stringify(i.input, null, 2)}</pre>
        </details>
        <details>
          <summary>Output schema of ${i.name}</summary>
          <pre>${JSON.stringify(i.output, null, 2)}</pre>
        </details>
      </section>
    `
  );
  const body = manifest.updatedAt === null
    ? html`<p>No manifest uploaded yet. The app uploads it when it starts in hybrid or cloud mode.</p>`
    : html`<p>Uploaded ${time(manifest.updatedAt)}. Allowed scopes: ${
      manifest.scopes.length ? manifest.scopes.join(", ") : "none"
    }.</p>
${intents}`;
  return htmlPage(layout(ctx, { title: "Intents", section: "Intents", project: ctx.project, body }), overHttps(ctx));
}
