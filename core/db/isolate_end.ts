/**
 * The end of this isolate, for the engines: where the runtime dispatches `unload` (Deno, browsers), from that event on
 * no statement may reach libSQL's native module. Deno's test runner finalizes a test file's Node-API objects right
 * after the file's `unload` and then keeps running its timers, so a database a timer still uses would be read after it
 * was freed (SIGSEGV). One listener per isolate; runtimes without `addEventListener` (Node, Bun) never end it early.
 *
 * @module
 */

const tasks = new Set<() => void>();
let ended = false;

(globalThis as { addEventListener?: (type: string, listener: () => void) => void }).addEventListener?.(
  "unload",
  () => {
    ended = true;
    for (const task of [...tasks]) task();
    tasks.clear();
  },
);

/**
 * Whether this isolate has unloaded: its native database objects may already be finalized.
 *
 * @returns `true` after the `unload` event.
 */
export function isolateEnded(): boolean {
  return ended;
}

/**
 * Runs `task` when this isolate unloads, before its native objects are finalized.
 *
 * @param task What to run (close the connections still open).
 * @returns A function that cancels it (call it when the connection closes first).
 */
export function atIsolateEnd(task: () => void): () => void {
  tasks.add(task);
  return () => tasks.delete(task);
}
