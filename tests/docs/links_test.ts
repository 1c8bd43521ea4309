// The documentation's relative links lead somewhere: every file a link names
// exists, and every `#anchor` is a heading of its target (as GitHub makes them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const DOCUMENTS = [
  "README.md",
  "SECURITY.md",
  "bench/README.md",
  ...readdirSync("docs").filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`),
];

/** The lines of a Markdown text outside fenced code blocks. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && !line.startsWith("```");
  });
}

/** The anchors GitHub gives a Markdown file's headings (`## The cloud's /v1` → `the-clouds-v1`). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (!heading) continue;
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count ? `${slug}-${count}` : slug);
  }
  return result;
}

for (const document of DOCUMENTS) {
  test(`every relative link of ${document} names an existing file and heading`, () => {
    const links = prose(readFileSync(document, "utf8")).flatMap((line) =>
      [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1])
    ).filter((link) => !/^[a-z]+:/.test(link));
    const broken: string[] = [];
    for (const link of links) {
      const [path, anchor] = link.split("#");
      const target = path === "" ? document : normalize(join(dirname(document), path));
      if (!existsSync(target)) {
        broken.push(`${link}: no file ${target}`);
        continue;
      }
      if (anchor && target.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
}
