/**
 * A project's approvals, read-only: what waits for its user's decision (newest first, with the intent, the key, the
 * user, when it was asked for and when it expires), then what was recently decided, expired or cancelled, with the
 * outcome. Nobody decides here: the key's user decides in the app; the cloud only records each step the app reports.
 *
 * @module
 */
import { html } from "hono/html";
import type { ListedApproval } from "../approvals/mod.ts";
import { keyLabelId } from "../keys/mod.ts";
import { dataTable, time } from "./fragments.ts";
import { layout } from "./layout.ts";
import type { ProjectContext } from "./page_context.ts";
import { type Html, htmlPage } from "./responses.ts";
import { overHttps } from "./visit.ts";

/** Each outcome in words. */
const OUTCOMES: Record<ListedApproval["status"], string> = {
  pending: "Pending",
  approved: "Approved",
  denied: "Denied",
  expired: "Expired",
  cancelled: "Cancelled (key revoked)",
};

/**
 * The approvals page.
 *
 * @param ctx The request.
 * @returns The page.
 */
export async function approvalsPage(ctx: ProjectContext): Promise<Response> {
  const projectId = ctx.project.id;
  const { pending, decided } = await ctx.services.approvals.board(projectId, ctx.now);
  // The keys' names in one read for the page.
  const labels = await ctx.services.keys.labels([...pending, ...decided].map((a) => ({ projectId, keyId: a.keyId })));
  const key = (a: ListedApproval): Html => {
    const label = labels.get(keyLabelId(projectId, a.keyId));
    return html`${label ? html`<strong>${label.name}</strong><br>` : ""}<code>${a.keyId}</code>`;
  };
  const pendingRows = pending.map((a) =>
    html`
      <tr>
        <td><code>${a.intent}</code></td>
        <td>${key(a)}</td>
        <td>${a.userId}</td>
        <td>${time(a.createdAt)}</td>
        <td>${time(a.expiresAt)}</td>
      </tr>
    `
  );
  const decidedRows = decided.map((a) =>
    html`
      <tr>
        <td>${OUTCOMES[a.status]}</td>
        <td><code>${a.intent}</code></td>
        <td>${key(a)}</td>
        <td>${a.userId}</td>
        <td>${time(a.createdAt)}</td>
        <td>${time(a.decidedAt ?? a.expiresAt)}</td>
        <td>${a.reason ?? ""}</td>
      </tr>
    `
  );
  const body = html`
    <p>Agents ask before running some intents. <strong>The key's user decides, in the app</strong>, not here: this
      page shows what the project's apps reported, and nobody can approve or deny from the dashboard.</p>
    <h2>Pending (${pending.length})</h2>
    ${pending.length === 0 ? html`<p>Nothing waits for a decision.</p>` : dataTable({
      label: "Pending approvals",
      caption: "Approvals waiting for their user's decision, newest first",
      columns: ["Intent", "Key", "User", "Requested", "Expires"],
      rows: pendingRows,
    })}
    <h2>Recently decided</h2>
    ${decided.length === 0 ? html`<p>No approval was decided yet.</p>` : dataTable({
      label: "Decided approvals",
      caption: "Approvals decided, expired or cancelled, newest first",
      columns: ["Outcome", "Intent", "Key", "User", "Requested", "Decided", "Reason"],
      rows: decidedRows,
    })}
  `;
  return htmlPage(
    layout(ctx, { title: "Approvals", section: "Approvals", project: ctx.project, body }),
    overHttps(ctx),
  );
}
