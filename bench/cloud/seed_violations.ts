// 1,000,000 violations in a cloud database, inserted by SQL in large batches
// and kept in bench/.cache/ between runs.
import { createClient } from "@libsql/client";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { type BenchProject, benchProject } from "./project.ts";
import { ROOT } from "../server_process.ts";

const CHUNK = 100_000;

/**
 * The cached violations database, seeded when missing.
 *
 * @param count How many violations.
 * @returns The database URL and its project.
 */
export async function violationsDatabase(count: number): Promise<BenchProject & { db: string }> {
  const dir = `${ROOT}bench/.cache`;
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/violations-${count}.db`;
  const meta = `${path}.json`;
  if (existsSync(path) && existsSync(meta)) return { db: `file:${path}`, ...JSON.parse(readFileSync(meta, "utf8")) };
  console.error(`seeding ${count.toLocaleString("en-US")} violations into ${path} (cached for later runs)…`);
  const building = `${path}.building`;
  rmSync(building, { force: true });
  const project = await benchProject(`file:${building}`);
  const client = createClient({ url: `file:${building}` });
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("PRAGMA synchronous = OFF");
  const kinds = ["REVOKED_KEY", "FORBIDDEN_SCOPE", "UNKNOWN_INTENT", "INTENT_VALIDATION_ERROR", "RATE_LIMITED"]
    .map((kind, i) => `WHEN ${i} THEN '${kind}'`).join(" ");
  const start = Date.parse("2025-01-01T00:00:00Z");
  for (let done = 0; done < count; done += CHUNK) {
    const n = Math.min(CHUNK, count - done);
    await client.execute({
      sql: `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
            INSERT INTO cloud_violations (id, project_id, key_id, user_id, intent, kind, severity, message, metadata, created_at)
            SELECT printf('v%09d', i), ?, printf('key-%04d', i % 1000), printf('user-%03d', i % 300), 'notes.create',
                   CASE i % 5 ${kinds} END,
                   CASE i % 3 WHEN 0 THEN 'info' WHEN 1 THEN 'warning' ELSE 'severe' END,
                   'refused', '{"method":"POST"}',
                   strftime('%Y-%m-%dT%H:%M:%fZ', (? + i * 2000) / 1000.0, 'unixepoch')
            FROM seq`,
      args: [done, done + n - 1, project.projectId, start],
    });
  }
  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  client.close();
  renameSync(building, path);
  for (const suffix of ["-wal", "-shm"]) rmSync(building + suffix, { force: true });
  writeFileSync(meta, JSON.stringify(project));
  return { db: `file:${path}`, ...project };
}
