// `admin create` on a terminal: the password is read in raw mode (not echoed),
// and raw mode is turned off again whatever happens.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { readHiddenLine } from "../../../cloud/cli/hidden_input.ts";

function terminal(): PassThrough & { modes: boolean[]; setRawMode(raw: boolean): void } {
  const stream = new PassThrough() as PassThrough & { modes: boolean[]; setRawMode(raw: boolean): void };
  stream.modes = [];
  stream.setRawMode = (raw) => stream.modes.push(raw);
  return stream;
}

test("readHiddenLine reads a line typed in raw mode, with backspace, and restores the terminal", async () => {
  const input = terminal();
  const read = readHiddenLine(input);
  assert.deepEqual(input.modes, [true], "raw (no echo) before anything is typed");
  input.write("correct horsx");
  input.write("\u007fe battery staple\rignored");
  assert.equal(await read, "correct horse battery staple");
  assert.deepEqual(input.modes, [true, false]);
});

test("readHiddenLine gives up on Ctrl-C and still turns raw mode off", async () => {
  const input = terminal();
  const read = readHiddenLine(input);
  input.write("abc\u0003");
  await assert.rejects(read, /Cancelled/);
  assert.deepEqual(input.modes, [true, false]);
});
