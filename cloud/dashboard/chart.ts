/**
 * Counts over time as a server-rendered SVG bar chart (stacked bars) with a text alternative: a summary in the SVG's
 * title and description, and the numbers as a table. Violations by severity, and a key's runs and refusals.
 *
 * @module
 */
import { html } from "hono/html";
import { SEVERITIES } from "../../core/contract/mod.ts";
import type { BucketUnit, ViolationBucket } from "../violations/mod.ts";
import type { ActivityHour } from "../activity/mod.ts";
import type { Html } from "./responses.ts";

const WIDTH = 720;
const HEIGHT = 160;
const PAD = 24;

/**
 * The bucket keys of the last `count` hours or days up to `now`, oldest first.
 *
 * @param now The time, in milliseconds.
 * @param unit Hours or days.
 * @param count How many buckets.
 * @returns Keys like `2025-01-01T10` or `2025-01-01`.
 */
export function bucketKeys(now: number, unit: BucketUnit, count: number): string[] {
  const step = unit === "hour" ? 3_600_000 : 86_400_000;
  const width = unit === "hour" ? 13 : 10;
  return Array.from({ length: count }, (_, i) => new Date(now - (count - 1 - i) * step).toISOString().slice(0, width));
}

/** One stacked series of a chart: its CSS class (the bar's and the swatch's colour) and its name in words. */
interface Series {
  /** The class of its bars and swatch. */
  name: string;
  /** Its name in the legend, the summary and the table. */
  label: string;
}

/**
 * A stacked bar chart of counts per bucket and series.
 *
 * @param id A unique id for the chart's title and description.
 * @param caption What the chart shows.
 * @param keys The buckets, oldest first.
 * @param series The series, bottom first.
 * @param counts Per bucket, the count of each series (a bucket left out counts none).
 * @param none What the table says when every count is 0.
 * @returns The SVG and its table.
 */
function stackedBars(
  id: string,
  caption: string,
  keys: string[],
  series: readonly Series[],
  counts: Map<string, Record<string, number>>,
  none: string,
): Html {
  const of = (k: string, s: Series) => counts.get(k)?.[s.name] ?? 0;
  const totals = series.map((s) => [s, keys.reduce((n, k) => n + of(k, s), 0)] as const);
  const peak = Math.max(1, ...keys.map((k) => series.reduce((n, s) => n + of(k, s), 0)));
  const slot = (WIDTH - 2 * PAD) / keys.length;
  const bars = keys.flatMap((k, i) => {
    let y = HEIGHT - PAD;
    return series.map((s) => {
      const h = (of(k, s) / peak) * (HEIGHT - 2 * PAD);
      y -= h;
      return h > 0
        ? html`<rect class="${s.name}" x="${(PAD + i * slot + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${
          Math.max(1, slot - 2).toFixed(1)
        }" height="${h.toFixed(1)}"></rect>`
        : "";
    });
  });
  const summary = `${totals.map(([s, n]) => `${n} ${s.label}`).join(", ")}; at most ${peak} in one ${
    keys[0]?.length === 13 ? "hour" : "day"
  }.`;
  const rows = keys.filter((k) => series.some((s) => of(k, s) > 0)).map((k) =>
    html`<tr><th scope="row">${k}</th>${series.map((s) => html`<td>${of(k, s)}</td>`)}</tr>`
  );
  return html`
    <figure>
      <figcaption>${caption}</figcaption>
      <svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img"
        aria-labelledby="${id}-title ${id}-desc">
      <title id="${id}-title">${caption}</title>
      <desc id="${id}-desc">${summary}</desc>
      <line x1="${PAD}" y1="${HEIGHT - PAD}" x2="${WIDTH - PAD}" y2="${HEIGHT - PAD}" stroke="#4a5360"></line>
      <text x="${PAD}" y="${HEIGHT - 6}" font-size="11" fill="#4a5360">${keys[0] ?? ""}</text>
      <text x="${WIDTH - PAD}" y="${HEIGHT - 6}" font-size="11" fill="#4a5360" text-anchor="end">${keys.at(-1) ??
        ""}</text>
      <text x="${PAD}" y="14" font-size="11" fill="#4a5360">peak ${peak}</text>
      ${bars}
      </svg>
      <ul class="legend">${series.map((s) => html`<li><span class="swatch ${s.name}"></span>${s.label}</li>`)}</ul>
      <details><summary>The numbers (${summary})</summary>
    ${rows.length
      ? html`
        <table>
          <thead>
            <tr><th scope="col">${keys[0]?.length === 13 ? "Hour (UTC)" : "Day (UTC)"}</th>${series.map((s) =>
              html`<th scope="col">${s.label}</th>`
            )}</tr>
          </thead>
          <tbody>${rows}</tbody>
        </table>
      `
      : html`<p>${none}</p>`}
      </details>
    </figure>
  `;
}

/**
 * A stacked bar chart of violations per bucket and severity.
 *
 * @param id A unique id for the chart's title and description.
 * @param caption What the chart shows ("Violations of the last 24 hours, by hour").
 * @param keys The buckets, oldest first.
 * @param buckets The counts.
 * @returns The SVG and its table.
 */
export function violationChart(id: string, caption: string, keys: string[], buckets: ViolationBucket[]): Html {
  const counts = new Map<string, Record<string, number>>();
  for (const b of buckets) {
    const c = counts.get(b.bucket) ?? {};
    c[b.severity] = (c[b.severity] ?? 0) + b.count;
    counts.set(b.bucket, c);
  }
  const series = SEVERITIES.map((s) => ({ name: s, label: s }));
  return stackedBars(id, caption, keys, series, counts, "No violation in this period.");
}

/** A key's chart: its refusals below its other runs, so a bar's height is every run of the hour. */
const ACTIVITY_SERIES: readonly Series[] = [
  { name: "refused", label: "refusals" },
  { name: "runs", label: "other runs" },
];

/**
 * A stacked bar chart of a key's runs per hour, its refusals marked.
 *
 * @param id A unique id for the chart's title and description.
 * @param caption What the chart shows.
 * @param keys The hours, oldest first.
 * @param hours The key's runs and refusals by hour.
 * @returns The SVG and its table.
 */
export function activityChart(id: string, caption: string, keys: string[], hours: ActivityHour[]): Html {
  const counts = new Map(hours.map((h) => [h.hour, { refused: h.refusals, runs: h.runs - h.refusals }]));
  return stackedBars(id, caption, keys, ACTIVITY_SERIES, counts, "No run in this period.");
}
