/**
 * Small pieces of HTML the pages share: times and ages, notices, paging, the list table,
 * and the page for a refused or failed request.
 *
 * @module
 */
import { html } from "hono/html";
import { document } from "./layout.ts";
import { type Html, htmlPage } from "./responses.ts";

/** Rows per page of every list. */
export const PAGE_SIZE = 50;

/**
 * A time as `<time>`, shown in UTC to the second (day and clock each unbroken), the full ISO 8601 in its tooltip.
 *
 * @param iso ISO 8601, or `null` for "never".
 * @returns The element.
 */
export function time(iso: string | null): Html {
  if (iso === null) return html`<span class="muted">never</span>`;
  // Day and clock each unbroken: at most two lines in a narrow cell, one where there is room.
  return html`<time datetime="${iso}" title="${iso}"><span>${iso.slice(0, 10)}</span> <span>${
    iso.slice(11, 19)
  } UTC</span></time>`;
}

/**
 * A duration in words: `45 s`, `12 min`, `3 h`, `2 d`.
 *
 * @param ms Milliseconds.
 * @returns The words.
 */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172_800) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/**
 * The page number of a list from `?page=` (1-based), as an offset.
 *
 * @param url The request URL.
 * @returns The offset of the page's first row.
 */
export function pageOffset(url: URL): number {
  const page = Number(url.searchParams.get("page") ?? "1");
  return Number.isInteger(page) && page > 1 && page < 1_000_000 ? (page - 1) * PAGE_SIZE : 0;
}

/**
 * Links to the previous and next page, keeping the other query parameters.
 *
 * @param url The request URL.
 * @param total Count of every match.
 * @param offset The current page's offset.
 * @returns The navigation, or nothing when everything fits on one page.
 */
export function pager(url: URL, total: number, offset: number): Html {
  if (total <= PAGE_SIZE && offset === 0) return html``;
  const page = Math.floor(offset / PAGE_SIZE) + 1;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const link = (n: number) => {
    const next = new URL(url);
    next.searchParams.set("page", String(n));
    return `${next.pathname}${next.search}`;
  };
  return html`<nav class="pager" aria-label="Pages">
  ${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">Previous page</a>` : ""}
  <span>Page ${page} of ${pages}</span>
  ${page < pages ? html`<a href="${link(page + 1)}" rel="next">Next page</a>` : ""}
</nav>`;
}

/**
 * A notice on a page.
 *
 * @param kind `error`, `notice` or `success`.
 * @param message The text.
 * @returns The element (an alert for errors).
 */
export function notice(kind: "error" | "notice" | "success", message: string | Html): Html {
  return html`<div class="${kind}" role="${kind === "error" ? "alert" : "status"}">${message}</div>`;
}

/**
 * A page with one message: a refusal, a missing thing, an error.
 *
 * @param status The status.
 * @param title The heading.
 * @param message The text.
 * @param secure Whether browsers reach the dashboard over https.
 * @returns The response.
 */
export function messagePage(status: number, title: string, message: string, secure: boolean): Promise<Response> {
  return htmlPage(
    document(
      title,
      html`<main><h1>${title}</h1>${
        notice("error", message)
      }<p><a href="/dashboard/projects">Back to the projects</a></p></main>`,
    ),
    secure,
    status,
  );
}

/** A list for {@link dataTable}: what it is called, its columns, its rows. */
export interface DataTable {
  /** The list's name for screen readers (the scrolling region's and, unless `caption` says more, the table's). */
  label: string;
  /** The table's caption (hidden: the heading above says it for sighted readers); `label` when absent. */
  caption?: string | Html;
  /** The column headings, in order. */
  columns: readonly (string | Html)[];
  /** The rows (`<tr>`s). */
  rows: Html | readonly Html[];
}

/**
 * A list as a table in a box of its own that scrolls sideways on a narrow screen (the page itself never does), which
 * a keyboard can reach and a screen reader names.
 *
 * @param table What the list is called, its columns and its rows.
 * @returns The box and its table.
 */
export function dataTable(table: DataTable): Html {
  return html`<div class="table-box" tabindex="0" role="region" aria-label="${table.label}">
  <table>
    <caption class="visually-hidden">${table.caption ?? table.label}</caption>
    <thead>
      <tr>${table.columns.map((c) => html`<th scope="col">${c}</th>`)}</tr>
    </thead>
    <tbody>${table.rows}</tbody>
  </table>
</div>`;
}
