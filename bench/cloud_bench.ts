// placeholder
import type { Result } from "./result.ts";
export function cloudBench(_: { quick: boolean }): Promise<Result[]> {
  return Promise.resolve([]);
}
