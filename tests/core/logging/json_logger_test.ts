// The JSON form of the logger: one JSON object a line with time, level and message; request lines with route,
// status, ms, project and keyId; and createSvc({ logger }) writing them for its /svc routes, never a secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSvcConfig } from "../../../core/app/svc_config_schema.ts";
import { SvcError } from "../../../core/errors/mod.ts";
import { isJsonLogger, jsonLogger } from "../../../core/logging/mod.ts";
import { asAgent, asUser, intents, mint, notesSvc, run, SCOPES } from "../../fixtures/notes_svc.ts";

const AT = Date.parse("2026-05-01T12:00:00.000Z");

function capture(): { lines: Record<string, unknown>[]; raw: string[]; write(line: string): void } {
  const raw: string[] = [];
  return {
    raw,
    get lines() {
      return raw.map((l) => JSON.parse(l));
    },
    write: (line) => void raw.push(line),
  };
}

test("jsonLogger() writes failures and requests as one JSON object a line, secrets redacted", () => {
  const out = capture();
  const log = jsonLogger({ now: () => AT, write: out.write });
  assert.equal(isJsonLogger(log), true);
  assert.equal(isJsonLogger(() => {}), false);
  const cycle: Record<string, unknown> = { message: "loop" };
  cycle.self = cycle;
  log("Intent failed", new Error(`with svc_live_${"s".repeat(40)}`, { cause: cycle }));
  log("The cloud is down", new SvcError("CLOUD_UNAVAILABLE", "The cloud answered 503", { cause: 503 }));
  log("Refusing agent keys", undefined);
  log.request({ route: "POST /svc/agent/run", status: 500, ms: 1.5, keyId: "k1" });
  log.request({ route: "GET /svc/keys", status: 404, ms: 0.1 });
  log.info("listening");
  assert.equal(out.raw.some((l) => l.includes("s".repeat(40))), false, "the key is redacted");
  const [failed, down, refusing, ran, missing, info] = out.lines;
  assert.equal(failed.time, "2026-05-01T12:00:00.000Z");
  assert.equal(failed.level, "error");
  assert.equal(failed.message, "Intent failed");
  const error = failed.error as { name: string; message: string; stack: string; cause: unknown };
  assert.equal(error.name, "Error");
  assert.match(error.message, /^with svc_live_/);
  assert.equal(typeof error.stack, "string");
  assert.deepEqual(
    [down.level, down.message, down.error],
    ["warn", "The cloud is down: The cloud answered 503", undefined],
    "an expected failure: its reason, no stack",
  );
  assert.deepEqual([refusing.level, refusing.message], ["warn", "Refusing agent keys"]);
  assert.deepEqual(ran, {
    time: "2026-05-01T12:00:00.000Z",
    level: "error",
    message: "POST /svc/agent/run 500",
    route: "POST /svc/agent/run",
    status: 500,
    ms: 1.5,
    keyId: "k1",
  });
  assert.equal(missing.level, "warn");
  assert.deepEqual([info.level, info.message], ["info", "listening"]);
});

test("createSvc({ logger: jsonLogger(…) }) writes a line per /svc request with route, status, ms and keyId", async () => {
  const out = capture();
  const svc = notesSvc({ logger: jsonLogger({ now: () => AT, write: out.write }) }, () => AT);
  try {
    const { id, key } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await asAgent(svc, key, "GET", "/svc/agent/intents")).status, 200);
    assert.equal((await run(svc, key, "notes.broken")).status, 500);
    assert.equal((await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scopes: [], colour: 1 })).status, 400);
    assert.equal((await asAgent(svc, `svc_live_${"x".repeat(40)}`, "GET", "/svc/agent/intents")).status, 401);
    await svc.close();
    const lines = out.lines;
    const requests = lines.filter((l) => l.route !== undefined);
    assert.deepEqual(
      requests.map((l) => [l.route, l.status, l.level, l.keyId]),
      [
        ["POST /svc/keys", 201, "info", undefined],
        ["GET /svc/agent/intents", 200, "info", id],
        ["POST /svc/agent/run", 500, "error", id],
        ["POST /svc/keys", 400, "warn", undefined],
        ["GET /svc/agent/intents", 401, "warn", undefined],
      ],
    );
    assert.ok(requests.every((l) => typeof l.ms === "number" && l.project === undefined), "local mode: no project");
    const failure = lines.find((l) => l.error !== undefined);
    assert.ok(failure, "the handler's exception has its own error line");
    assert.equal(out.raw.some((l) => l.includes(key)), false, "never the key");
    assert.equal(out.raw.some((l) => l.includes("hunter2")), true, "the cause goes to the log (not the answer)");
  } finally {
    await svc.close();
  }
});

test('createSvc() takes logger "json" and refuses another string', () => {
  const config = { userResolver: () => null, scopes: SCOPES, intents, storage: ":memory:" as const };
  assert.doesNotThrow(() => checkSvcConfig({ ...config, logger: "json" }));
  assert.throws(() => checkSvcConfig({ ...config, logger: "xml" as never }), /`logger` must be a function/);
});
