// The whole suite: the same test files on Deno, Bun and Node, then the static
// checks JSR asks for. Run by `npm test` (Node 24 from devDependencies).
// `npm test -- --runtime=node` runs one runtime; `--no-checks` skips the checks.
// `npm run test:fast` (`--fast`) is the inner loop: one runtime, no checks, no
// file tagged slow, files run in parallel, and its slowest files listed. A file
// is tagged slow by its first line starting with `// @slow: reason`
// (subprocesses, packaging, browsers, runtime probes); `npm test` runs every
// file whatever its tag, the three runtimes at once (each to its own log in
// .tmp/logs, printed when it ends): on Node the untagged files side by side,
// then the slow ones side by side, then those tagged `// @slow @serial: reason`
// one at a time. A failed test is named again at the end, with why (from the
// JUnit reports), where the tail of a long CI log shows it.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The runtime of the fast loop: the quickest on this suite (measured: see the commit that set it). */
const FAST_RUNTIME = "deno";
/** The first-line marker of a slow test file. */
const SLOW_TAG = "// @slow";
/** The first-line marker of a slow file that must not run beside another one so marked (they share dist/npm). */
const SERIAL_TAG = "// @slow @serial";
/** How many failed tests of a runtime the summary shows, and how many lines of each one's failure. */
const FAILURES_SHOWN = 10;
const FAILURE_LINES = 4;

const args = process.argv.slice(2);
const fast = args.includes("--fast");
const only = args.find((a) => a.startsWith("--runtime="))?.slice("--runtime=".length) ??
  (fast ? FAST_RUNTIME : undefined);
const named = args.filter((a) => !a.startsWith("--"));
const reports = ".tmp/junit";
const files = fast && named.length === 0
  ? longestFirst(testFiles("tests").filter((file) => !isSlow(file)), fileSeconds(`${reports}/${FAST_RUNTIME}.xml`))
  : named;
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

// The whole gate (no file named) runs Node's untagged files side by side, one per core (most of Node's time is a
// process started per file, and waiting: sockets, long polls), then its files tagged slow side by side too (servers,
// browsers, npm), then those tagged `@slow @serial` one at a time (they build the repository's dist/npm). Deno keeps one
// file at a time there: a `--parallel` run of the gate's untagged files, beside a second full suite, once ended with no
// summary and no report (CI run E, 2026-11-27), which the fast loop has not shown; Bun runs every file in one process.
const gate = !fast && named.length === 0;
const allFiles = gate ? testFiles("tests") : [];
/** Each pass of a runtime: the files, whether they run side by side, and the JUnit report it writes. */
type Pass = { files: string[]; parallel: boolean; report: string };
const passes = (name: string, sideBySide: boolean): Pass[] =>
  gate && sideBySide
    ? [
      { files: allFiles.filter((file) => !isSlow(file)), parallel: true, report: `${reports}/${name}.xml` },
      {
        files: allFiles.filter((file) => isSlow(file) && !isSerial(file)),
        parallel: true,
        report: `${reports}/${name}-slow.xml`,
      },
      { files: allFiles.filter(isSerial), parallel: false, report: `${reports}/${name}-serial.xml` },
    ]
    : [{ files: files.length ? files : ["tests/"], parallel: fast, report: `${reports}/${name}.xml` }];

const runtimes = [
  {
    name: "deno",
    cmds: passes("deno", false).map((pass) => ({
      report: pass.report,
      cmd: [
        "deno",
        "test",
        "-A",
        "--no-check",
        ...(pass.parallel ? ["--parallel"] : []),
        `--junit-path=${pass.report}`,
        ...pass.files,
      ],
    })),
  },
  {
    // Bun runs every file in one process, one after the other.
    name: "bun",
    cmds: [{
      report: `${reports}/bun.xml`,
      cmd: [
        "bun",
        "test",
        "--timeout=60000",
        "--reporter=junit",
        `--reporter-outfile=${reports}/bun.xml`,
        ...(files.length ? files : ["tests/"]),
      ],
    }],
  },
  {
    name: "node",
    cmds: passes("node", true).map((pass) => ({
      report: pass.report,
      cmd: [
        "node",
        "--test",
        `--test-concurrency=${pass.parallel ? 2 : 1}`,
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        "--test-reporter=junit",
        `--test-reporter-destination=${pass.report}`,
        ...pass.files,
      ],
    })),
  },
].filter((r) => !only || r.name === only);

const checks = [
  [
    "deno",
    "check",
    "mod.ts",
    ...["adapters/", "core/", "cloud/", "testing/", "tests/", "examples/", "bench/", "scripts/"].filter(existsSync),
  ],
  ["deno", "lint"],
  ["deno", "fmt", "--check"],
  ["deno", "doc", "--lint", "mod.ts", "cloud/mod.ts", "core/agent/agent_client.ts", "testing/mod.ts", ...adapters()],
  // Every `@example` in the JSDoc of the shipped code type-checks (run: no; they would start servers).
  ["deno", "test", "--doc", "--no-run", "mod.ts", ...["adapters", "core", "cloud", "testing"].flatMap(sources)],
  ["deno", "publish", "--dry-run", "--allow-dirty"],
];

/** Every `*_test.ts` under `dir`, sorted. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith("_test.ts") ? [path] : [];
  }).sort();
}

/** Every TypeScript source under `dir` (not tests), sorted. */
function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts") ? [path] : [];
  }).sort();
}

/** Whether a test file's first line tags it slow. */
function isSlow(file: string): boolean {
  return firstLine(file).startsWith(SLOW_TAG);
}

/** Whether a test file's first line tags it slow and serial. */
function isSerial(file: string): boolean {
  return firstLine(file).startsWith(SERIAL_TAG);
}

function firstLine(file: string): string {
  return readFileSync(file, "utf8").split("\n", 1)[0];
}

/** Every public adapter entry point, for the documentation lint. */
function adapters(): string[] {
  return readdirSync("adapters").filter((name) => name.endsWith(".ts")).map((name) => `adapters/${name}`);
}

// The whole gate runs the three runtimes at once, each writing to its own log, printed whole when that runtime ends
// (on 2 cores the suite took the sum of three runtimes that each leave a core idle much of the time: sockets, long
// polls, subprocesses). Anything narrower (a runtime, named files, the fast loop) runs in the terminal as it goes.
const together = gate && !only;
const logs = ".tmp/logs";
if (together) {
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
}
type Ran = { code: number | null; signal: NodeJS.Signals | null };
type Counts = { name: string; passed: number; failed: number };
/** The failed tests of every runtime, with why: printed last, where the tail of a long CI log shows them. */
const failures: string[] = [];
async function runRuntime(runtime: (typeof runtimes)[number]): Promise<Counts> {
  const started = Date.now();
  const log = together ? openSync(`${logs}/${runtime.name}.log`, "w") : undefined;
  const counts = { passed: 0, failed: 0 };
  const notes: string[] = [];
  const failed: string[][] = [];
  for (const { cmd: [cmd, ...rest], report } of runtime.cmds) {
    const { code, signal } = await new Promise<Ran>((resolve) => {
      const child = spawn(cmd, rest, { stdio: log === undefined ? "inherit" : ["ignore", log, log] });
      child.on("error", () => resolve({ code: 1, signal: null }));
      child.on("close", (code, signal) => resolve({ code, signal }));
    });
    // A runtime killed by a signal prints nothing of its own: say which, so that a crash is not a silent end.
    if (signal !== null) notes.push(`${runtime.name}: ${cmd} ended by ${signal}, with no summary of its own`);
    const pass = countJunit(report);
    if (code !== 0 && pass.failed === 0) pass.failed = 1; // a crash outside any test
    failed.push(...failedCases(report, runtime.name));
    counts.passed += pass.passed;
    counts.failed += pass.failed;
  }
  if (log !== undefined) {
    closeSync(log);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`\n===== ${runtime.name}: ${seconds} s (${logs}/${runtime.name}.log) =====`);
    console.log(readFileSync(`${logs}/${runtime.name}.log`, "utf8"));
  }
  for (const note of notes) console.error(`\n${note}`);
  failures.push(...failed.slice(0, FAILURES_SHOWN).flat());
  if (failed.length > FAILURES_SHOWN) {
    failures.push(`${runtime.name.padEnd(6)} and ${failed.length - FAILURES_SHOWN} more`);
  }
  return { name: runtime.name, ...counts };
}
const results: Counts[] = [];
if (together) results.push(...await Promise.all(runtimes.map(runRuntime)));
else for (const runtime of runtimes) results.push(await runRuntime(runtime));
const rows: string[] = [];
let passed = 0;
let failed = 0;
for (const counts of results) {
  passed += counts.passed;
  failed += counts.failed;
  rows.push(
    `${counts.name.padEnd(6)} ${String(counts.passed).padStart(4)} passed ${String(counts.failed).padStart(3)} failed`,
  );
}
if (!args.includes("--no-checks") && !only && gate) {
  for (const check of checks) {
    const [cmd, ...rest] = check;
    const ok = spawnSync(cmd, rest, { stdio: "inherit" }).status === 0;
    if (ok) passed++;
    else failed++;
    rows.push(`check  ${check.slice(0, 3).join(" ")}: ${ok ? "ok" : "FAILED"}`);
  }
}
if (fast) rows.push(...slowestFiles(`${reports}/${FAST_RUNTIME}.xml`, 8));
if (failures.length) console.log(`\nfailed tests (each runtime's first ${FAILURES_SHOWN}):\n${failures.join("\n")}`);
console.log("\n" + rows.join("\n"));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

// Counts leaf test cases in a JUnit report: a <testcase> with a <failure> or
// <error> inside failed, one with <skipped> is neither. Deno also lists each
// describe() group as a case named like the prefix of its steps: not counted,
// nor its failure when that is only its steps' ("1 test step failed").
function countJunit(path: string): { passed: number; failed: number } {
  let xml: string;
  try {
    xml = readFileSync(path, "utf8");
  } catch {
    return { passed: 0, failed: 1 };
  }
  const cases = [...xml.matchAll(/<testcase\b[^>]*?name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)]
    .map((m) => ({ name: m[1], inner: m[3] ?? "" }));
  const groups = new Set(cases.flatMap((c) => {
    const parts = c.name.split(" &gt; ");
    return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join(" &gt; "));
  }));
  let passed = 0;
  let failed = 0;
  for (const c of cases) {
    if (groups.has(c.name) && /<failure message="\d+ test steps? failed/.test(c.inner)) continue; // counted at its step
    if (/<(failure|error)\b/.test(c.inner)) failed++;
    else if (!groups.has(c.name) && !/<skipped\b/.test(c.inner)) passed++;
  }
  return { passed, failed };
}

// The failed leaf tests of a JUnit report (Deno's, Bun's or Node's), each as its name, the first lines of its failure
// and the first test-file frame of the stack: what a CI log cut to its tail still needs to tell what failed and why.
// A group that failed only because a step did is left out; so is a report that is missing (counted as a failure).
// Attribute values may hold a bare `>` (Node's do), so an element's attributes are read quote-aware.
function failedCases(path: string, runtime: string): string[][] {
  let xml: string;
  try {
    xml = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const cases: string[][] = [];
  for (const m of xml.matchAll(/<testcase\b((?:[^>"]|"[^"]*")*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const failure = /<(?:failure|error)\b((?:[^>"]|"[^"]*")*?)(?:\/>|>([\s\S]*?)<\/(?:failure|error)>)/.exec(
      m[2] ?? "",
    );
    if (failure === null) continue;
    const message = unescapeXml(attribute(failure[1], "message"));
    if (/^\d+ test steps? failed/.test(message)) continue;
    const name = unescapeXml(attribute(m[1], "name"));
    const group = unescapeXml(attribute(m[1], "classname"));
    const title = group && group !== "test" && !/\.[jt]s$/.test(group) ? `${group} > ${name}` : name;
    const where = /(?:file:\/\/)?[\w./-]+_test\.ts:\d+:\d+/.exec(unescapeXml(failure[2] ?? ""))?.[0];
    const lines = message.split("\n").map((line) => line.trimEnd()).filter(Boolean).slice(0, FAILURE_LINES);
    cases.push([
      `${runtime.padEnd(6)} ${title}`,
      ...lines.map((line) => `         ${line.slice(0, 200)}`),
      ...(where ? [`         at ${where}`] : []),
    ]);
  }
  return cases;
}

function attribute(attributes: string, name: string): string {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1] ?? "";
}

function unescapeXml(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|lt|gt|quot|apos|amp);/gi, (_, entity: string) => {
    const named: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" };
    if (entity[0] !== "#") return named[entity.toLowerCase()];
    return String.fromCodePoint(entity[1] === "x" ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
  });
}

// Each file's seconds, from a JUnit report's top-level cases (a describe() counts once, with its steps); empty
// without a report.
function fileSeconds(path: string): Map<string, number> {
  const seconds = new Map<string, number>();
  let xml: string;
  try {
    xml = readFileSync(path, "utf8");
  } catch {
    return seconds;
  }
  for (const m of xml.matchAll(/<testcase\b[^>]*?name="([^"]*)"[^>]*?classname="([^"]*)"[^>]*?time="([^"]*)"/g)) {
    const [, name, file, time] = m;
    if (!file.startsWith("./") || name.includes(" &gt; ")) continue;
    seconds.set(file.slice(2), (seconds.get(file.slice(2)) ?? 0) + Number(time));
  }
  return seconds;
}

// The fast loop starts the files that took longest last time first (files new since then keep their order after
// them), so that no long file starts last and leaves a core idle while it finishes.
function longestFirst(files: string[], seconds: Map<string, number>): string[] {
  return files.map((file, i) => ({ file, i, s: seconds.get(file) ?? 0 }))
    .sort((a, b) => b.s - a.s || a.i - b.i).map(({ file }) => file);
}

// The files whose tests took longest: where to look when the fast loop grows past its minute.
function slowestFiles(path: string, count: number): string[] {
  return [...fileSeconds(path)].sort((a, b) => b[1] - a[1]).slice(0, count)
    .map(([file, s]) => `slowest ${s.toFixed(1).padStart(6)} s ${file}`);
}
