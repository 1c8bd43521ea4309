// What every answer to hostile input must be: below 500, JSON, the contract's
// envelope on errors, with no stack trace, SQL or database error text in it;
// and the arbitraries that produce hostile input.
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Client } from "@libsql/client";

const LEAKS =
  /\bat \S+ \(|\.ts:\d+:\d+|SQLITE_|sqlite|libsql|\bSELECT\b|\bINSERT INTO\b|\bUPDATE \w+ SET\b|\bDELETE FROM\b/i;

/** Checks one answer; returns its status. */
export function assertSafeAnswer(status: number, contentType: string | null, text: string, what: string): number {
  assert.ok(status < 500, `${what} → ${status}: ${text.slice(0, 300)}`);
  assert.equal(contentType, "application/json", what);
  const body = JSON.parse(text);
  // MCP speaks JSON-RPC: a protocol-level refusal there is a JSON-RPC error object, as MCP clients expect.
  if (status >= 400 && body.jsonrpc === "2.0" && what.includes("/svc/mcp")) {
    assert.equal(typeof body.error?.code, "number", what);
    assert.equal(typeof body.error?.message, "string", what);
  } else if (status >= 400) {
    assert.equal(body.ok, false, what);
    assert.match(body.error.code, /^[A-Z_]+$/, what);
    assert.equal(typeof body.error.message, "string", what);
  }
  assert.doesNotMatch(text, LEAKS, `${what} leaks internals: ${text.slice(0, 300)}`);
  return status;
}

/** Counts the rows of every table, in one statement. */
export async function rowCounts(client: Client): Promise<string> {
  const tables = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  const columns = tables.rows.map((r) => `(SELECT COUNT(*) FROM "${r.name}") AS "${r.name}"`);
  const rs = await client.execute(`SELECT ${columns.join(", ")}`);
  return JSON.stringify(rs.rows[0]);
}

/** Text with what breaks naive code: NUL, lone surrogates, emoji, RTL marks, SQL and path tricks. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "\udfff\ud800",
    "\u202e",
    "'; DROP TABLE cloud_events; --",
    "../../etc/passwd",
    "__proto__",
    "constructor",
    "%00",
    "agt_00000000-0000-0000-0000-000000000000",
    "svc_live_",
    "default",
    "x".repeat(201),
    "9".repeat(400),
  ),
);

/** Any JSON value, with hostile strings, huge and odd numbers, and nesting up to 12 levels. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.constantFrom(0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63, null, true, false),
    fc.integer(),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Raw body text: JSON that is wrong in ways JSON.stringify cannot write. */
export const rawJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer({ min: 1, max: 100_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
  fc.integer({ min: 1, max: 100_000 }).map((n) => '{"a":'.repeat(n) + "1" + "}".repeat(n)),
  fc.constantFrom("1e999", "-0", "123456789012345678901234567890", "NaN", '"\\ud800"', "\u0000", '{"a":1,}'),
);

/** A JSON object with `key` written first with `first` and again later (JSON.parse keeps the later one). */
export function duplicateKeyText(body: Record<string, unknown>, key: string, first: unknown): string {
  const text = JSON.stringify(body);
  const extra = `${JSON.stringify(key)}:${JSON.stringify(first) ?? "null"}`;
  return text === "{}" ? `{${extra},${extra}}` : `{${extra},${text.slice(1)}`;
}
