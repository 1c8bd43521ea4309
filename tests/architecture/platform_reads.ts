/**
 * Finds direct reads of the platform (the wall clock, a monotonic clock, randomness, the global `fetch`) in
 * library code: `core/` and `cloud/` take them from a `Runtime` (`core/platform/`), whose one file
 * `core/platform/platform.ts` holds the defaults. The command line (`cloud/cli/`, `cloud/main.ts`) and the
 * adapters may read the platform. `new Date(x)` with an argument is a conversion, not a read.
 *
 * @module
 */

/** The one library file that may read the platform. */
export const DEFAULTS_FILE = "core/platform/platform.ts";

/** The reads looked for, each with the name a failure gives it. */
const READS: readonly { name: string; pattern: RegExp }[] = [
  { name: "Date.now", pattern: /\bDate\.now\b/g },
  { name: "new Date()", pattern: /\bnew Date\b(?!\s*\(\s*[^)\s])/g },
  { name: "performance.now", pattern: /\bperformance\.now\b/g },
  { name: "Math.random", pattern: /\bMath\.random\b/g },
  { name: "crypto.getRandomValues", pattern: /\bcrypto\.getRandomValues\b/g },
  { name: "crypto.randomUUID", pattern: /\bcrypto\.randomUUID\b/g },
  { name: "ulid() without a seed time", pattern: /\bulid\s*\(\s*\)/g },
  { name: "the global fetch", pattern: /(?<![\w$#.])\bfetch\s*\(|\bglobalThis\.fetch\b/g },
];

/** One direct read: where and what. */
export interface PlatformRead {
  /** `path:line`. */
  where: string;
  /** The name of the read. */
  read: string;
}

/** Whether a repository path is library code the rule holds for. */
export function isLibrary(path: string): boolean {
  if (!path.startsWith("core/") && !path.startsWith("cloud/")) return false;
  return !path.startsWith("cloud/cli/") && path !== "cloud/main.ts" && path !== DEFAULTS_FILE;
}

/** The text with comments blanked (lines kept, so line numbers hold). */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[^:\\"'`])\/\/.*$/gm, "$1");
}

/**
 * The direct platform reads in library files.
 *
 * @param sources Repository path → text.
 * @returns Every read found, in path and line order.
 */
export function platformReads(sources: ReadonlyMap<string, string>): PlatformRead[] {
  const found: PlatformRead[] = [];
  for (const [path, text] of [...sources].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isLibrary(path)) continue;
    withoutComments(text).split("\n").forEach((line, i) => {
      for (const { name, pattern } of READS) {
        if (line.match(pattern)) found.push({ where: `${path}:${i + 1}`, read: name });
      }
    });
  }
  return found;
}

/**
 * The module-level state that may stay, each with why: it belongs to the process or the isolate itself (not to one
 * svc or cloud), or it caches a module import.
 */
export const PROCESS_STATE: Readonly<Record<string, string>> = {
  "core/db/isolate_end.ts tasks":
    "the isolate's unload: one event per isolate, whatever svc or cloud opened a database",
  "core/db/isolate_end.ts ended": "the isolate's unload: one event per isolate",
  "core/db/native_executor.ts connections":
    "the native connections of this process to one file see each other's commits",
  "core/db/native_executor.ts checkpointsHereLogged":
    "that this process's WAL checkpoints run on the event loop (no worker thread) is said once per process",
  "core/mcp/mcp_route.ts sdk": "the MCP SDK's module, imported once on first use (a module is per process)",
  "core/http/text_response.ts answerClass": "the Node adapter's Response class (to be taken from the Runtime)",
  "core/http/text_response.ts keptByClone": "whether the serving adapter's server sends a kept answer's clone faster",
};

/**
 * Module-level mutable state in library files: a top-level `let`, or a top-level `Map` or `Set` whose name is not a
 * constant's (UPPER_CASE). A `WeakMap` keyed by its owner (a cloud, a request) is not shared state and is not listed.
 *
 * @param sources Repository path → text.
 * @returns `path name` of each.
 */
export function moduleState(sources: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of [...sources].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isLibrary(path) && path !== DEFAULTS_FILE) continue;
    for (const line of withoutComments(text).split("\n")) {
      const state = line.match(/^(?:export )?let (\w+)/) ??
        line.match(/^(?:export )?const ([a-z_$][\w$]*)\b[^=]*= new (?:Map|Set)\b/);
      if (state) found.push(`${path} ${state[1]}`);
    }
  }
  return found;
}
