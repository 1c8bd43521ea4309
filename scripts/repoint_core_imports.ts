/**
 * Re-points imports of core's inner files to the rooms' doors: each name imported from
 * `core/<…>/<file>.ts` is imported instead from the `mod.ts` of the core room that exports it
 * (found by name, so a name that moved to another room follows it). Used once, at the merge of
 * core's rooms, on the folders given (by default `cloud`).
 *
 * Run: `node scripts/repoint_core_imports.ts [folder…]` from the repository root.
 *
 * @module
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { posix } from "node:path";

const EXPORTED =
  /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|abstract\s+class|interface|type|enum)\s+(\w+)/gm;
const EXPORT_LIST = /^export\s+(?:type\s+)?\{([^}]*)\}(?:\s*from\s*"[^"]+")?;/gm;
const STATEMENT = /^(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*"(\.[^"]+)";/gm;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = `${dir}/${name}`;
    if (name === "node_modules") continue;
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** The door of the room a core file is in (the nearest `mod.ts` up its folders), if it still exists. */
function doorOf(path: string): string | null {
  for (let dir = posix.dirname(path); dir !== "."; dir = posix.dirname(dir)) {
    try {
      if (statSync(`${dir}/mod.ts`).isFile()) return `${dir}/mod.ts`;
    } catch {
      // no door here
    }
  }
  return null;
}

/** The names each door exports. */
const exportedBy = new Map<string, Set<string>>();

/** Each name a core room's door exports, and that room's `mod.ts`. */
function doorIndex(): Map<string, string> {
  const files = new Set(walk("core"));
  const index = new Map<string, string>();
  for (const mod of [...files].filter((f) => f.endsWith("/mod.ts"))) {
    const room = posix.dirname(mod);
    for (const m of readFileSync(mod, "utf8").matchAll(/export \* from "\.\/([^"]+)"/g)) {
      const source = readFileSync(`${room}/${m[1]}`, "utf8");
      const names = exportedBy.get(mod) ?? new Set<string>();
      exportedBy.set(mod, names);
      for (const e of source.matchAll(EXPORTED)) names.add(e[1]);
      for (const e of source.matchAll(EXPORT_LIST)) {
        for (const item of e[1].split(",").map((s) => s.trim()).filter(Boolean)) {
          names.add(item.replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim());
        }
      }
      for (const name of names) if (!index.has(name)) index.set(name, mod);
    }
  }
  return index;
}

function relative(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

/**
 * Re-points one file's imports of core's inner files; returns the names it could not place.
 *
 * @param path The file.
 * @param index Names to doors.
 * @returns The names left as they were.
 */
function repoint(path: string, index: Map<string, string>): string[] {
  const source = readFileSync(path, "utf8");
  const missing: string[] = [];
  const out = source.replace(STATEMENT, (whole, kw: string, typeKw: string | undefined, body: string, spec: string) => {
    const target = posix.normalize(posix.join(posix.dirname(path), spec));
    if (!target.startsWith("core/") || target.endsWith("/mod.ts")) return whole;
    const byDoor = new Map<string, string[]>();
    for (const item of body.split(",").map((s) => s.trim()).filter(Boolean)) {
      const name = item.replace(/^type\s+/, "").split(/\s+as\s+/)[0].trim();
      // The door of the file's own room when it exports the name (a name re-exported elsewhere stays home).
      const home = doorOf(target);
      const door = home !== null && exportedBy.get(home)?.has(name) ? home : index.get(name);
      if (door === undefined) {
        missing.push(`${path}: ${name}`);
        return whole;
      }
      byDoor.set(door, [...(byDoor.get(door) ?? []), item]);
    }
    return [...byDoor].map(([door, items]) =>
      `${kw}${typeKw ?? ""} { ${items.join(", ")} } from "${relative(path, door)}";`
    ).join("\n");
  });
  if (out !== source) writeFileSync(path, out);
  return missing;
}

const index = doorIndex();
const folders = process.argv.slice(2);
const missing = (folders.length ? folders : ["cloud"]).flatMap((f) => walk(f)).flatMap((f) => repoint(f, index));
if (missing.length) {
  console.error(`not re-pointed (no core door exports these names):\n${missing.join("\n")}`);
  process.exitCode = 1;
}
