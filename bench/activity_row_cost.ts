// What one activity row costs the app to write, in process, by table layout (issue 41):
//   [MEMORY=1] [USERS=20] [KEYS=100] <deno run -A|bun|node> bench/activity_row_cost.ts [layouts=a,app] [rows=10000]
//     [rounds=15]
// Each layout gets its own file database (WAL, the app's native executor, checkpoints included); each round writes
// `rows` records as the activity log does (groups of 500 in one transaction, 50 rows a multi-row INSERT) into every
// layout in turn (alternated); prints the CPU (user + system) per row, best of the rounds, and the bytes the process
// wrote a row (WAL and checkpoints; Linux). The tables grow over the rounds (a row costs the same from 0 to 1,000,000
// rows: bench/README.md). MEMORY=1: `:memory:` databases (no I/O). USERS and KEYS: how the rows spread (the app bench's
// load is one user and one key). `a` is schema 14 as it was, `app` what the app runs now (migration 15); the other
// letters are the candidates measured on the way (see LAYOUTS).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { monotonicFactory } from "ulid";
import { type Executor, migrate, openDatabase, placeholders, type SqlValue, type Statement } from "../core/db/mod.ts";
import type { ActivityRecord } from "../core/contract/mod.ts";
import { activityValues } from "../core/activity/mod.ts";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE } from "../core/app/storage/mod.ts";
import { insertActivity } from "../core/app/storage/libsql_activity.ts";
import { argv } from "./app/runtime_args.ts";

const COLUMNS = "id, at, key_id, user_id, agent_id, intent, via, outcome, status, code, ms, client, approval_id";
const TABLE = `at TEXT NOT NULL, key_id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT, intent TEXT NOT NULL,
  via TEXT NOT NULL, outcome TEXT NOT NULL, status INTEGER NOT NULL, code TEXT, ms REAL NOT NULL, client TEXT,
  approval_id TEXT`;

interface Layout {
  name: string;
  schema: string[];
  /** Writes a group with the app's own code, on the app's migrated schema (instead of `schema`). */
  app?: boolean;
  /** On the app's migrated schema, with these statements for a group instead. */
  group?: (records: readonly ActivityRecord[]) => Statement[];
  columns?: string;
  values?: (r: ActivityRecord) => SqlValue[];
}

const LAYOUTS: Record<string, Layout> = {
  // What the app runs: its migrations and `insertActivity`.
  app: { name: "the app (APP_MIGRATIONS, insertActivity)", schema: [], app: true },
  // Migration 14: the rowid table, the TEXT primary key's autoindex, by_user, by_key (4 B-trees).
  a: {
    name: "rowid + id autoindex + by_user + by_key",
    schema: [
      `CREATE TABLE app_activity (id TEXT PRIMARY KEY, ${TABLE})`,
      "CREATE INDEX app_activity_by_user ON app_activity (user_id, id)",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
  },
  b: {
    name: "WITHOUT ROWID (id) + by_user + by_key",
    schema: [
      `CREATE TABLE app_activity (id TEXT PRIMARY KEY, ${TABLE}) WITHOUT ROWID`,
      "CREATE INDEX app_activity_by_user ON app_activity (user_id, id)",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
  },
  c: {
    name: "WITHOUT ROWID (user_id, id) + by_key",
    schema: [
      `CREATE TABLE app_activity (id TEXT NOT NULL, ${TABLE}, PRIMARY KEY (user_id, id)) WITHOUT ROWID`,
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
  },
  d: {
    name: "WITHOUT ROWID (user_id, id) + by_key + by_id",
    schema: [
      `CREATE TABLE app_activity (id TEXT NOT NULL, ${TABLE}, PRIMARY KEY (user_id, id)) WITHOUT ROWID`,
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
      "CREATE INDEX app_activity_by_id ON app_activity (id)",
    ],
  },
  // c without `at` (derivable from the id's time): 12 values a row.
  e: {
    name: "c without at (12 values)",
    schema: [
      `CREATE TABLE app_activity (id TEXT NOT NULL, ${
        TABLE.replace("at TEXT NOT NULL, ", "")
      }, PRIMARY KEY (user_id, id)) WITHOUT ROWID`,
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
    columns: COLUMNS.replace("at, ", ""),
    values: (r) => activityValues(r).filter((_, i) => i !== 1),
  },
  // a without `at`, to see what one value less is worth on its own.
  f: {
    name: "a without at (12 values)",
    schema: [
      `CREATE TABLE app_activity (id TEXT PRIMARY KEY, ${TABLE.replace("at TEXT NOT NULL, ", "")})`,
      "CREATE INDEX app_activity_by_user ON app_activity (user_id, id)",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
    columns: COLUMNS.replace("at, ", ""),
    values: (r) => activityValues(r).filter((_, i) => i !== 1),
  },
  // c with every column no query reads packed into one JSON text: 4 values a row.
  g: {
    name: "c, packed (4 values)",
    schema: [
      `CREATE TABLE app_activity (id TEXT NOT NULL, user_id TEXT NOT NULL, key_id TEXT NOT NULL, run TEXT NOT NULL,
        PRIMARY KEY (user_id, id)) WITHOUT ROWID`,
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
    columns: "id, user_id, key_id, run",
    values: packed,
  },
  h: {
    name: "a, packed (4 values)",
    schema: [
      "CREATE TABLE app_activity (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, key_id TEXT NOT NULL, run TEXT NOT NULL)",
      "CREATE INDEX app_activity_by_user ON app_activity (user_id, id)",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
    columns: "id, user_id, key_id, run",
    values: packed,
  },
  i: {
    name: "b, packed (4 values)",
    schema: [
      "CREATE TABLE app_activity (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, key_id TEXT NOT NULL, run TEXT NOT NULL) WITHOUT ROWID",
      "CREATE INDEX app_activity_by_user ON app_activity (user_id, id)",
      "CREATE INDEX app_activity_by_key ON app_activity (user_id, key_id, id)",
    ],
    columns: "id, user_id, key_id, run",
    values: packed,
  },
  // No index at all, 13 values: the floor of the binding and the table.
  n: { name: "rowid table alone (13 values)", schema: [`CREATE TABLE app_activity (id TEXT NOT NULL, ${TABLE})`] },
  p: {
    name: "rowid table alone, packed (4 values)",
    schema: [
      "CREATE TABLE app_activity (id TEXT NOT NULL, user_id TEXT NOT NULL, key_id TEXT NOT NULL, run TEXT NOT NULL)",
    ],
    columns: "id, user_id, key_id, run",
    values: packed,
  },
  // The app's schema, one value bound per statement: 50 rows as one JSON array, split by SQLite's json_each.
  r: {
    name: "the app's schema, json_each (1 value a statement)",
    schema: [],
    app: true,
    group: (records) => {
      const out: Statement[] = [];
      for (let i = 0; i < records.length; i += PER_INSERT) {
        const rows = records.slice(i, i + PER_INSERT).map((r) => {
          const [id, userId, keyId, record] = packed(r);
          return `[${JSON.stringify(id)},${JSON.stringify(userId)},${JSON.stringify(keyId)},${record}]`;
        });
        out.push({
          sql: "INSERT OR IGNORE INTO app_activity (id, user_id, key_id, record) " +
            "SELECT value ->> 0, value ->> 1, value ->> 2, value -> 3 FROM json_each(?)",
          args: [`[${rows.join(",")}]`],
        });
      }
      return out;
    },
  },
  q: {
    name: "rowid table alone, one value a row",
    schema: ["CREATE TABLE app_activity (record TEXT NOT NULL)"],
    columns: "record",
    values: (r) => [packed(r).join("\u0001")],
  },
};

function packed(r: ActivityRecord): SqlValue[] {
  return [
    r.id,
    r.userId,
    r.keyId,
    JSON.stringify([
      r.at,
      r.agentId,
      r.intent,
      r.via,
      r.outcome,
      r.status,
      r.code ?? null,
      r.ms,
      r.client ?? null,
      r.approvalId ?? null,
    ]),
  ];
}

const [list = "a,app", count = "10000", roundsArg = "15"] = argv();
const names = list.split(",");
const rows = Number(count);
const rounds = Number(roundsArg);
const GROUP = 500;
const PER_INSERT = 50;
const USERS = Number(process.env.USERS ?? 20);
const KEYS = Number(process.env.KEYS ?? 100);

/** A group's statements, as `insertActivity` builds them (kept only, not mirrored). */
function statements(layout: Layout, records: readonly ActivityRecord[]): Statement[] {
  const columns = layout.columns ?? COLUMNS;
  const values = layout.values ?? activityValues;
  const n = columns.split(",").length;
  const out: Statement[] = [];
  for (let i = 0; i < records.length; i += PER_INSERT) {
    const chunk = records.slice(i, i + PER_INSERT);
    const row = `(${placeholders(n)})`;
    out.push({
      sql: `INSERT OR IGNORE INTO app_activity (${columns}) VALUES ${chunk.map(() => row).join(", ")}`,
      args: chunk.flatMap(values),
    });
  }
  return out;
}

const mint = monotonicFactory();
let clock = Date.parse("2026-11-27T00:00:00.000Z");
/** A run's record as the activity log mints it: a few runs a millisecond, spread over users and keys. */
function record(i: number): ActivityRecord {
  if (i % 4 === 0) clock++;
  const key = i % KEYS;
  return {
    id: `act_${mint(clock)}`,
    at: new Date(clock).toISOString(),
    keyId: `key_${String(key).padStart(26, "0")}`,
    userId: `user-${key % USERS}`,
    agentId: key % 3 === 0 ? null : `agent-${key}`,
    intent: "notes.create",
    via: "http",
    outcome: i % 10 === 0 ? "refused" : "ok",
    status: i % 10 === 0 ? 403 : 200,
    ...(i % 10 === 0 ? { code: "FORBIDDEN_SCOPE" } : {}),
    ms: 0.123 + (i % 7),
  };
}

/** Bytes this process has written through system calls (Linux: `wchar` of /proc/self/io). */
function written(): number {
  return Number(/wchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))![1]);
}

const dir = mkdtempSync(join(tmpdir(), "svc-activity-rows-"));
const dbs = new Map<string, Executor>();
try {
  for (const name of names) {
    const db = await openDatabase(process.env.MEMORY ? ":memory:" : `file:${join(dir, `${name}.db`)}`);
    if (LAYOUTS[name].app) await migrate(db, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
    for (const sql of LAYOUTS[name].schema) await db.execute(sql);
    dbs.set(name, db);
  }
  const best = new Map<string, number>();
  const split = new Map<string, string>();
  const io = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const db = dbs.get(name)!;
      const records = Array.from({ length: rows }, (_, i) => record(i));
      const wrote = written();
      const before = process.cpuUsage();
      for (let i = 0; i < rows; i += GROUP) {
        const group = records.slice(i, i + GROUP);
        const own = LAYOUTS[name].group;
        if (own) await db.batch(own(group), "write");
        else if (LAYOUTS[name].app) await insertActivity(db, group, { keep: true, mirror: false });
        else await db.batch(statements(LAYOUTS[name], group), "write");
        await new Promise((resolve) => setTimeout(resolve, 0)); // the executor's checkpoint runs between groups
      }
      const used = process.cpuUsage(before);
      const bytes = (written() - wrote) / rows;
      io.set(name, Math.min(io.get(name) ?? Infinity, bytes));
      const us = (used.user + used.system) / rows;
      if (us < (best.get(name) ?? Infinity)) {
        split.set(name, `user ${(used.user / rows).toFixed(2)}, system ${(used.system / rows).toFixed(2)}`);
      }
      best.set(name, Math.min(best.get(name) ?? Infinity, us));
    }
  }
  const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
  for (const name of names) {
    console.log(
      `${runtime} ${name} ${best.get(name)!.toFixed(2)} µs a row (${split.get(name)}; ${
        io.get(name)!.toFixed(0)
      } bytes written a row)  ${LAYOUTS[name].name}`,
    );
  }
} finally {
  for (const db of dbs.values()) db.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
