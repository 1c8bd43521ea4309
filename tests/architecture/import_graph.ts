/**
 * The import graph of the package and the rules its rooms keep.
 *
 * A **room** is a folder that directly holds a `mod.ts`, other than the repository root (so `core/app/` and
 * `core/app/storage/` are two rooms). A file belongs to the nearest room among its folder and that folder's
 * ancestors; a file with none (the root `mod.ts`, `adapters/deno.ts`) is an entry and belongs to no room.
 *
 * The rules, over every relative `import … from`, `export … from`, `import "…"` and `import("…")`:
 * - **door**: a file may import another room's files only through that room's `mod.ts`;
 * - **layer**: nothing under `core/` imports from `cloud/` or `adapters/`;
 * - **cycle**: no two rooms import each other, directly or through other rooms;
 * - **cloud layer**: a cloud feature folder (`cloud/NAME/`) imports only the feature folders
 *   {@linkcode CLOUD_LAYERS} allows it (`cloud_layers.ts`).
 * - **named door**: a `mod.ts` names what it exports (no `export *`);
 * - **owner**: a room's `mod.ts` exports only what its own files declare, so a symbol is imported from the room that
 *   owns it, never through a neighbour (the package's public entries, {@linkcode PUBLIC_DOORS}, gather from many rooms).
 *
 * @module
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { CLOUD_LAYERS } from "./cloud_layers.ts";

/**
 * Whether what breaks a rule under `cloud/` is only reported, not failed: `false` since the cloud's feature modules
 * keep every rule (the option stays for a branch that must land in steps).
 */
export const CLOUD_RULES_REPORT_ONLY = false;

/** The folders and files whose imports are checked. */
export const CHECKED_ROOTS: readonly string[] = ["core", "cloud", "adapters", "testing", "mod.ts"];

/** The doors that are public entry points of the package (`jsr.json`'s exports): they re-export from many rooms. */
export const PUBLIC_DOORS: readonly string[] = ["cloud/mod.ts", "testing/mod.ts"];

/** One relative import: the importing file, the imported file (both repository paths) and the line. */
export interface ImportEdge {
  /** The importing file. */
  from: string;
  /** The imported file, resolved. */
  to: string;
  /** The line of the import, from 1. */
  line: number;
}

/** A broken rule. */
export interface RuleBreak {
  /** Which rule. */
  rule: "door" | "layer" | "cycle" | "cloud layer" | "named door" | "owner";
  /** What is wrong, with the file and line (or the rooms of the cycle). */
  message: string;
  /** Whether it is only reported (a cloud file while {@linkcode CLOUD_RULES_REPORT_ONLY}). */
  reportOnly: boolean;
}

/** What the checker found. */
export interface GraphReport {
  /** Rules broken that fail the check. */
  failures: RuleBreak[];
  /** Rules broken that are only reported. */
  reported: RuleBreak[];
  /** Every room found, sorted. */
  rooms: string[];
  /** Every relative import found. */
  edges: ImportEdge[];
  /** The rooms each room imports (through any of its files). */
  roomImports: Map<string, Set<string>>;
}

/** Options of {@linkcode checkImportGraph}. */
export interface CheckOptions {
  /** Report, without failing, what breaks a rule under `cloud/`. Default {@linkcode CLOUD_RULES_REPORT_ONLY}. */
  cloudReportOnly?: boolean;
  /** Which cloud feature folder may import which, by folder name. Default {@linkcode CLOUD_LAYERS}. */
  cloudLayers?: Readonly<Record<string, readonly string[]>>;
}

const IMPORT_LINE = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The relative specifiers a source imports, with their lines; comments are skipped.
 *
 * @param source A TypeScript source.
 * @returns Each relative specifier and its line.
 */
export function relativeImports(source: string): { specifier: string; line: number }[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/^[ \t]*\/\/.*$/gm, "");
  const found: { specifier: string; line: number }[] = [];
  for (const pattern of [IMPORT_LINE, DYNAMIC_IMPORT]) {
    for (const m of code.matchAll(pattern)) {
      const specifier = m[1] ?? m[2];
      if (!specifier.startsWith(".")) continue;
      const offset = m.index + m[0].indexOf(specifier);
      found.push({ specifier, line: code.slice(0, offset).split("\n").length });
    }
  }
  return found;
}

/**
 * The room of a file: the nearest folder, its own or an ancestor's, that holds a `mod.ts` (the root excluded).
 *
 * @param path A repository path, such as `core/app/storage/app_storage.ts`.
 * @param files Every file of the tree.
 * @returns The room's folder, or `null` for an entry outside every room.
 */
export function roomOf(path: string, files: ReadonlySet<string>): string | null {
  let dir = posix.dirname(path);
  while (dir !== "." && dir !== "") {
    if (files.has(`${dir}/mod.ts`)) return dir;
    dir = posix.dirname(dir);
  }
  return null;
}

function isCloud(path: string): boolean {
  return path === "cloud" || path.startsWith("cloud/");
}

/** The name of a cloud feature folder (`cloud/keys` → `keys`), or `null` for any other room. */
function cloudFeature(room: string): string | null {
  return /^cloud\/[^/]+$/.test(room) ? room.slice("cloud/".length) : null;
}

/** What breaks the declared layering in one import from one room to another, if anything. */
function layerBreak(
  fromRoom: string,
  toRoom: string,
  where: string,
  layers: Readonly<Record<string, readonly string[]>>,
): string | null {
  const from = cloudFeature(fromRoom);
  const to = cloudFeature(toRoom);
  if (from === null || to === null) return null;
  const allowed = layers[from];
  if (allowed === undefined) return `${where}: cloud/${from} is not in the cloud's layering (cloud_layers.ts)`;
  if (!allowed.includes(to)) {
    return `${where}: cloud/${from} may not import cloud/${to} (the cloud's layering, cloud_layers.ts)`;
  }
  return null;
}

/**
 * Checks the rooms' rules over a tree of sources.
 *
 * @param sources Each file's repository path and source.
 * @param options Whether cloud files are only reported.
 * @returns What breaks a rule, failing or reported, and the graph.
 */
export function checkImportGraph(sources: ReadonlyMap<string, string>, options: CheckOptions = {}): GraphReport {
  const cloudReportOnly = options.cloudReportOnly ?? CLOUD_RULES_REPORT_ONLY;
  const layers = options.cloudLayers ?? CLOUD_LAYERS;
  const files = new Set(sources.keys());
  const rooms = [...files].filter((f) => posix.basename(f) === "mod.ts" && posix.dirname(f) !== ".")
    .map((f) => posix.dirname(f)).sort();
  const breaks: RuleBreak[] = [];
  const edges: ImportEdge[] = [];
  const roomEdges = new Map<string, Map<string, ImportEdge>>();
  for (const [from, source] of sources) {
    for (const { specifier, line } of relativeImports(source)) {
      const to = posix.normalize(posix.join(posix.dirname(from), specifier));
      const edge = { from, to, line };
      edges.push(edge);
      const where = `${from}:${line} imports ${to}`;
      const reportOnly = cloudReportOnly && isCloud(from);
      if (from.startsWith("core/") && (isCloud(to) || to.startsWith("adapters/"))) {
        breaks.push({ rule: "layer", message: `${where}: core/ never imports cloud/ or adapters/`, reportOnly });
      }
      const fromRoom = roomOf(from, files);
      const toRoom = files.has(to) ? roomOf(to, files) : null;
      if (toRoom === null || toRoom === fromRoom) continue;
      if (to !== `${toRoom}/mod.ts`) {
        breaks.push({ rule: "door", message: `${where}: enter ${toRoom}/ through ${toRoom}/mod.ts`, reportOnly });
      }
      const layered = fromRoom === null ? null : layerBreak(fromRoom, toRoom, where, layers);
      if (layered !== null) breaks.push({ rule: "cloud layer", message: layered, reportOnly });
      if (fromRoom !== null) {
        const out = roomEdges.get(fromRoom) ?? new Map<string, ImportEdge>();
        if (!out.has(toRoom)) out.set(toRoom, edge);
        roomEdges.set(fromRoom, out);
      }
    }
  }
  for (const [door, source] of sources) {
    if (posix.basename(door) !== "mod.ts" || posix.dirname(door) === ".") continue;
    breaks.push(...doorBreaks(door, source, sources, files, cloudReportOnly && isCloud(door)));
  }
  for (const cycle of roomCycles(rooms, roomEdges)) {
    const through = cycle.map((room, i) => {
      const edge = roomEdges.get(room)?.get(cycle[(i + 1) % cycle.length]);
      return `${room} -> ${cycle[(i + 1) % cycle.length]} (${edge?.from}:${edge?.line})`;
    });
    breaks.push({
      rule: "cycle",
      message: `rooms import each other: ${through.join(", ")}`,
      reportOnly: cloudReportOnly && cycle.some(isCloud),
    });
  }
  return {
    failures: breaks.filter((b) => !b.reportOnly),
    reported: breaks.filter((b) => b.reportOnly),
    rooms,
    edges,
    roomImports: new Map([...roomEdges].map(([room, out]) => [room, new Set(out.keys())])),
  };
}

/**
 * The longest chain of rooms importing each other (the floors), among the rooms a filter keeps.
 *
 * @param roomImports The rooms each room imports (from {@linkcode checkImportGraph}; acyclic).
 * @param keep Which rooms count (default: all).
 * @returns The rooms of one longest chain, from the top floor down.
 */
export function longestChain(
  roomImports: ReadonlyMap<string, ReadonlySet<string>>,
  keep: (room: string) => boolean = () => true,
): string[] {
  const memo = new Map<string, string[]>();
  const chain = (room: string): string[] => {
    let found = memo.get(room);
    if (found !== undefined) return found;
    let below: string[] = [];
    for (const next of [...(roomImports.get(room) ?? [])].sort()) {
      if (!keep(next)) continue;
      const c = chain(next);
      if (c.length > below.length) below = c;
    }
    found = [room, ...below];
    memo.set(room, found);
    return found;
  };
  let longest: string[] = [];
  for (const room of [...roomImports.keys()].sort()) {
    if (!keep(room)) continue;
    const c = chain(room);
    if (c.length > longest.length) longest = c;
  }
  return longest;
}

/**
 * Whether a room is one of the cloud's feature folders (`cloud/NAME`).
 *
 * @param room A room.
 * @returns `true` for `cloud/keys`, `false` for `cloud` or `core/http`.
 */
export function isCloudFeature(room: string): boolean {
  return cloudFeature(room) !== null;
}

const STAR_EXPORT = /^\s*export\s*\*/m;
const NAMED_EXPORT = /^\s*export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["']([^"']+)["']/gm;

/** What a room's `mod.ts` breaks: an `export *`, or a re-export of what another room (or another file) declares. */
function doorBreaks(
  door: string,
  source: string,
  sources: ReadonlyMap<string, string>,
  files: ReadonlySet<string>,
  reportOnly: boolean,
): RuleBreak[] {
  const breaks: RuleBreak[] = [];
  if (STAR_EXPORT.test(source)) {
    breaks.push({ rule: "named door", message: `${door}: name what the door exports (no export *)`, reportOnly });
  }
  if (PUBLIC_DOORS.includes(door)) return breaks;
  const room = posix.dirname(door);
  for (const m of source.matchAll(NAMED_EXPORT)) {
    const to = posix.normalize(posix.join(room, m[2]));
    if (!files.has(to) || roomOf(to, files) !== room) {
      breaks.push({
        rule: "owner",
        message: `${door} re-exports ${to}: import it from the room that owns it`,
        reportOnly,
      });
      continue;
    }
    const target = sources.get(to) ?? "";
    for (const item of m[1].split(",")) {
      const name = item.replace(/^\s*type\s+/, "").split(/\s+as\s+/)[0].trim();
      if (name !== "" && !declares(target, name)) {
        breaks.push({
          rule: "owner",
          message: `${door} exports ${name} from ${to}, which does not declare it: import it from its owner`,
          reportOnly,
        });
      }
    }
  }
  return breaks;
}

/** Whether a source declares an exported name itself (not a re-export of an import). */
function declares(source: string, name: string): boolean {
  const declared = new RegExp(
    `^export\\s+(?:declare\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|class|const|let|interface|type|enum)\\s+${name}\\b`,
    "m",
  );
  if (declared.test(source)) return true;
  const imported = new RegExp(`^import[^;]*\\b${name}\\b[^;]*from`, "m");
  const listed = new RegExp(`^export\\s+(?:type\\s+)?\\{[^}]*\\b${name}\\b[^}]*\\}\\s*;`, "m");
  return listed.test(source) && !imported.test(source);
}

/** The strongly connected groups of more than one room (Tarjan), each in a cycle order. */
function roomCycles(rooms: readonly string[], out: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (room: string): void => {
    index.set(room, index.size);
    low.set(room, index.get(room)!);
    stack.push(room);
    onStack.add(room);
    for (const next of out.get(room)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(room, Math.min(low.get(room)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(room, Math.min(low.get(room)!, index.get(next)!));
    }
    if (low.get(room) !== index.get(room)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== room);
    if (group.length > 1) groups.push(orderCycle(group, out));
  };
  for (const room of rooms) if (!index.has(room)) visit(room);
  return groups;
}

/** A group's rooms in an order where each imports the next (a path through the group, for the message). */
function orderCycle(group: string[], out: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const order = [start];
  const seen = new Set(order);
  let at = start;
  for (;;) {
    const next = [...(out.get(at)?.keys() ?? [])].find((r) => members.has(r) && !seen.has(r));
    if (next === undefined) break;
    order.push(next);
    seen.add(next);
    at = next;
  }
  return order;
}

/**
 * Reads the sources of the checked roots (`.ts` files, `node_modules` skipped) under a directory.
 *
 * @param root The repository's directory.
 * @param roots The folders and files to read, relative to `root`.
 * @returns Each file's repository path (with `/`) and source.
 */
export function readSources(root: string, roots: readonly string[] = CHECKED_ROOTS): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (rel: string): void => {
    const full = join(root, rel);
    let stat;
    try {
      stat = statSync(full);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(full).sort()) {
        if (name !== "node_modules") walk(rel === "" ? name : `${rel}/${name}`);
      }
    } else if (rel.endsWith(".ts")) sources.set(rel, readFileSync(full, "utf8"));
  };
  for (const r of roots) walk(r);
  return sources;
}
