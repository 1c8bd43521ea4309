// One measured number and the baseline it was measured next to.

/** A row of bench/results.json. */
export interface Result {
  /** What was measured. */
  scenario: string;
  /** Where: deno, bun, node, or the compiled binary. */
  runtime: string;
  /** The measured value. */
  value: number;
  /** Its unit. */
  unit: string;
  /** The baseline measured in the same run (`null` when the target is absolute). */
  baseline: number | null;
  /** value / baseline (for times and memory: baseline / value is not used; see `target`). */
  ratio: number | null;
  /** The target, in words. */
  target?: string;
  /** Whether the target is met. */
  met?: boolean;
  /** Latencies of the measured side, in milliseconds. */
  p50Ms?: number;
  /** 99th percentile of the measured side, in milliseconds. */
  p99Ms?: number;
  /** What the baseline is. */
  baselineIs?: string;
}

/** value / baseline, rounded to two decimals. */
export function ratio(value: number, baseline: number): number {
  return Math.round((value / baseline) * 100) / 100;
}
