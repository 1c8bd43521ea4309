// The outputs: a markdown table, bench/results.json, and the table in bench/README.md.
import { execFileSync, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { readFileSync, writeFileSync } from "node:fs";
import type { Result } from "./result.ts";
import { ROOT, runtimeCommand } from "./server_process.ts";

/**
 * Formats results as a markdown table.
 *
 * @param results The rows.
 * @returns The table.
 */
export function markdownTable(results: Result[]): string {
  const lines = [
    "| scenario | runtime | value | baseline | ratio | p50 / p99 ms | target | met |",
    "|---|---|---:|---:|---:|---:|---|---|",
  ];
  for (const r of results) {
    const latency = r.p50Ms === undefined ? "" : `${r.p50Ms.toFixed(2)} / ${(r.p99Ms ?? NaN).toFixed(2)}`;
    const baseline = r.baseline === null
      ? ""
      : `${fmt(r.baseline)} ${r.unit}${r.baselineIs ? ` (${r.baselineIs})` : ""}`;
    const value = Number.isNaN(r.value) ? "not measured" : `${fmt(r.value)} ${r.unit}`;
    lines.push(
      `| ${r.scenario} | ${r.runtime} | ${value} | ${baseline} | ${r.ratio ?? ""} | ${latency} | ${r.target ?? ""} | ${
        r.met === undefined ? "" : r.met ? "yes" : "**no**"
      } |`,
    );
  }
  return lines.join("\n");
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : String(Math.round(n * 100) / 100);
}

/** The machine and runtime versions, for the README. */
export function machine(): string {
  const version = (file: string, args: string[]) =>
    execFileSync(runtimeCommand("deno", "")[0].replace(/deno$/, file), args, { encoding: "utf8" }).split("\n")[0]
      .trim();
  return [
    `- CPU: ${cpus()[0]?.model ?? "unknown"}, ${cpus().length} cores (nproc)`,
    `- Deno: ${version("deno", ["--version"])}`,
    `- Bun: ${version("bun", ["--version"])}`,
    `- Node: ${version("node", ["--version"])}`,
    `- wrk: ${spawnSync("wrk", ["--version"], { encoding: "utf8" }).stdout.split("\n")[0].trim()}`,
  ].join("\n");
}

/**
 * Writes bench/results.json and, for a full run, the table in bench/README.md.
 *
 * @param results The rows.
 * @param full Whether this was a full run.
 * @param section The README's section between `<!-- section:start -->` and `<!-- section:end -->`.
 */
export function writeReports(results: Result[], full: boolean, section = "results"): void {
  writeFileSync(`${ROOT}bench/results.json`, JSON.stringify(results, null, 2) + "\n");
  if (!full) return;
  const readme = `${ROOT}bench/README.md`;
  const text = readFileSync(readme, "utf8");
  const start = `<!-- ${section}:start -->`;
  const end = `<!-- ${section}:end -->`;
  if (!text.includes(start) || !text.includes(end)) return;
  const body = `${start}\nLatest full run, ${
    new Date().toISOString().slice(0, 16).replace("T", " ")
  } UTC:\n\n${machine()}\n\n${markdownTable(results)}\n${end}`;
  writeFileSync(readme, text.slice(0, text.indexOf(start)) + body + text.slice(text.indexOf(end) + end.length));
}
