// Agent keys in a cloud database for the dashboard bench: a copy of the cached violations database with
// `count` keys of its project added by SQL in batches of 100,000 (names in four families, 20 keys per user,
// starts spread like random ones, one key in ten revoked), kept in bench/.cache/ between runs.
import { createClient } from "@libsql/client";
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { BenchProject } from "./project.ts";
import { ROOT } from "../server_process.ts";
import { violationsDatabase } from "./seed_violations.ts";

const CHUNK = 100_000;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * The cached database of `violations` violations and `keys` keys in one project, seeded when missing.
 *
 * @param violations How many violations.
 * @param keys How many keys.
 * @returns The database URL and its project.
 */
export async function keysDatabase(violations: number, keys: number): Promise<BenchProject & { db: string }> {
  const path = `${ROOT}bench/.cache/dashboard-${violations}-${keys}.db`;
  const meta = `${path}.json`;
  if (existsSync(path) && existsSync(meta)) return { db: `file:${path}`, ...JSON.parse(readFileSync(meta, "utf8")) };
  const seeded = await violationsDatabase(violations);
  console.error(`seeding ${keys.toLocaleString("en-US")} keys into ${path} (cached for later runs)…`);
  const building = `${path}.building`;
  rmSync(building, { force: true });
  copyFileSync(seeded.db.slice("file:".length), building);
  const client = createClient({ url: `file:${building}` });
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("PRAGMA synchronous = OFF");
  const digit = (div: number) => `substr('${ALPHABET}', (i / ${div}) % 62 + 1, 1)`;
  const start = Date.parse("2024-01-01T00:00:00Z");
  for (let done = 0; done < keys; done += CHUNK) {
    const n = Math.min(CHUNK, keys - done);
    await client.execute({
      sql: `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
            INSERT INTO cloud_keys (id, project_id, user_id, name, scopes, agent_id, hash, start, created_at,
                                    last_used_at, revoked_at, revoke_reason)
            SELECT printf('00000000-0000-4000-8000-%012d', i), ?, printf('user-%05d', i / 20),
                   printf('%s-%07d', CASE i % 4 WHEN 0 THEN 'billing' WHEN 1 THEN 'support' WHEN 2 THEN 'reports'
                     ELSE 'notes' END, i),
                   '["notes:read"]', printf('user-%05d', i / 20), printf('%064x', i),
                   'svc_live_' || ${digit(1)} || ${digit(62)} || ${digit(3844)},
                   strftime('%Y-%m-%dT%H:%M:%fZ', (? + i * 1000) / 1000.0, 'unixepoch'), NULL,
                   CASE WHEN i % 10 = 9 THEN strftime('%Y-%m-%dT%H:%M:%fZ', (? + i * 1000 + 500) / 1000.0, 'unixepoch')
                   END,
                   CASE WHEN i % 10 = 9 THEN 'dashboard' END
            FROM seq`,
      args: [done, done + n - 1, seeded.projectId, start, start],
    });
  }
  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  client.close();
  renameSync(building, path);
  for (const suffix of ["-wal", "-shm"]) rmSync(building + suffix, { force: true });
  const project = { projectId: seeded.projectId, sdkSecret: seeded.sdkSecret };
  writeFileSync(meta, JSON.stringify(project));
  return { db: `file:${path}`, ...project };
}
