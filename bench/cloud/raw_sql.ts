// Baselines without the cloud: the same SQL through @libsql/client, in-process.
//   deno run -A bench/cloud/raw_sql.ts events <db> <projectId> <batch> <seconds>
//   deno run -A bench/cloud/raw_sql.ts violations <db> <projectId> <rounds>
// Prints one JSON object.
import { createClient, type InStatement } from "@libsql/client";
import { argv } from "../app/runtime_args.ts";

const [mode, db, projectId, a, b] = argv();
const client = createClient({ url: db });
await client.execute("PRAGMA journal_mode = WAL");
await client.execute("PRAGMA synchronous = NORMAL");

if (mode === "events") {
  const batch = Number(a);
  const until = Date.now() + Number(b) * 1000;
  const prefix = `raw-${Date.now()}`;
  let n = 0;
  const started = performance.now();
  while (Date.now() < until) {
    const statements: InStatement[] = [];
    for (let i = 0; i < batch; i++, n++) {
      statements.push({
        sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
              VALUES (?, ?, ?, ?, ?, ?)`,
        args: [
          projectId,
          `${prefix}-${n}`,
          "order.paid",
          `agent-${n % 4}`,
          JSON.stringify({ order: n, total: 42.5 }),
          new Date().toISOString(),
        ],
      });
    }
    if (batch === 1) await client.execute(statements[0]);
    else await client.batch(statements, "write");
  }
  console.log(JSON.stringify({ eventsPerSec: n / ((performance.now() - started) / 1000) }));
} else if (mode === "violations") {
  const rounds = Number(a);
  const out: Record<string, { p50: number; p99: number }> = {};
  const filters: Record<string, [string, unknown[]]> = {
    none: ["project_id = ?", [projectId]],
    kind_severity: ["project_id = ? AND kind = ? AND severity = ?", [projectId, "FORBIDDEN_SCOPE", "warning"]],
  };
  for (const [name, [where, args]] of Object.entries(filters)) {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t = performance.now();
      await client.batch([
        {
          sql: `SELECT * FROM cloud_violations WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 50 OFFSET 0`,
          args: args as never,
        },
        { sql: `SELECT COUNT(*) AS total FROM cloud_violations WHERE ${where}`, args: args as never },
      ], "read");
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    out[name] = { p50: times[Math.floor(rounds * 0.5)], p99: times[Math.floor(rounds * 0.99)] };
  }
  console.log(JSON.stringify(out));
}
client.close();
