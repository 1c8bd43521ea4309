// The recorder's cheap path: a refusal repeated within its key's window is counted without building a violation,
// and settle() stores the count as one summary row, exactly as the full path would.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openAppStorage } from "../../../core/app/storage/mod.ts";
import { createViolationRecorder } from "../../../core/app/mod.ts";
import { newViolation } from "../../../core/contract/mod.ts";
import type { AutoRevokePolicy } from "../../../core/contract/mod.ts";

async function recorderOn(autoRevoke?: AutoRevokePolicy) {
  const storage = await openAppStorage(":memory:");
  const recorder = createViolationRecorder({
    storage: () => storage,
    mirror: false,
    autoRevoke,
    stored: () => {},
    log: () => {},
  });
  return { storage, recorder };
}

const forbidden = (intent: string) =>
  newViolation("FORBIDDEN_SCOPE", { keyId: "k1", userId: "u1", intent, message: "This key lacks scopes" });

describe("createViolationRecorder().repeat", () => {
  test("repeat() refuses a refusal with no open window, so it is recorded in full", async () => {
    const { storage, recorder } = await recorderOn();
    assert.equal(recorder.repeat("k1", "FORBIDDEN_SCOPE", "notes.create"), false);
    await recorder.settle();
    assert.equal((await storage.listViolations({ limit: 10 })).length, 0, "repeat() alone writes nothing");
    storage.close();
  });

  test("repeats of an open window are counted, then stored as one summary with their number", async () => {
    const { storage, recorder } = await recorderOn();
    recorder.record(forbidden("notes.create"));
    for (let i = 0; i < 5; i++) assert.equal(recorder.repeat("k1", "FORBIDDEN_SCOPE", "notes.create"), true);
    assert.equal(recorder.repeat("k2", "FORBIDDEN_SCOPE", "notes.create"), false, "another key has no window");
    assert.equal(recorder.repeat("k1", "UNKNOWN_INTENT", "notes.create"), false, "another kind has no window");
    await recorder.settle();
    const rows = await storage.listViolations({ limit: 10 });
    assert.equal(rows.length, 2);
    const summary = rows.find((r) => r.metadata.repeats !== undefined);
    assert.equal(summary?.metadata.repeats, 5);
    storage.close();
  });

  test("a repeat naming an intent the window does not list yet goes the full way, so the name is kept", async () => {
    const { storage, recorder } = await recorderOn();
    recorder.record(forbidden("notes.create"));
    assert.equal(recorder.repeat("k1", "FORBIDDEN_SCOPE", "notes.delete"), false);
    recorder.record(forbidden("notes.delete"));
    await recorder.settle();
    const summary = (await storage.listViolations({ limit: 10 })).find((r) => r.metadata.repeats !== undefined);
    assert.deepEqual(summary?.metadata.intents, ["notes.create", "notes.delete"]);
    storage.close();
  });

  test("a refusal the auto-revoke policy counts is never folded into a repeat", async () => {
    const { storage, recorder } = await recorderOn({ threshold: 100, windowMinutes: 10, kinds: ["FORBIDDEN_SCOPE"] });
    recorder.record(forbidden("notes.create"));
    assert.equal(recorder.repeat("k1", "FORBIDDEN_SCOPE", "notes.create"), false);
    await recorder.settle();
    storage.close();
  });
});
