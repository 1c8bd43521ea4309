// An app database holding many keys (random hashes, inserted by SQL in large batches), kept in bench/.cache/
// between runs. The bench mints its own keys into it on every run.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { openAppStorage } from "../../core/app/storage/mod.ts";
import { openDatabase } from "../../core/db/mod.ts";
import { ROOT } from "../server_process.ts";

const CHUNK = 100_000;

/**
 * The cached database with `count` keys, seeded when missing.
 *
 * @param count How many keys.
 * @returns Its `file:` URL.
 */
export async function keysDatabase(count: number): Promise<string> {
  const dir = `${ROOT}bench/.cache`;
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/app-keys-${count}.db`;
  if (existsSync(path)) return `file:${path}`;
  console.error(`seeding ${count.toLocaleString("en-US")} keys into ${path} (cached for later runs)…`);
  const building = `${path}.building`;
  rmSync(building, { force: true });
  await (await openAppStorage(`file:${building}`)).close();
  const db = await openDatabase(`file:${building}`);
  for (let done = 0; done < count; done += CHUNK) {
    const n = Math.min(CHUNK, count - done);
    await db.execute({
      sql: `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
            INSERT INTO app_keys (id, user_id, name, scopes, agent_id, hash, start, created_at)
            SELECT printf('key_%09d', i), printf('user-%06d', i % 100000), 'filler', '["notes:read"]',
                   printf('user-%06d', i % 100000), lower(hex(randomblob(32))), 'svc_live_xxx', '2025-01-01T00:00:00.000Z'
            FROM seq`,
      args: [done, done + n - 1],
    });
  }
  await db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  renameSync(building, path);
  for (const suffix of ["-wal", "-shm"]) rmSync(building + suffix, { force: true });
  return `file:${path}`;
}
