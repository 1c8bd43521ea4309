/**
 * `svc.emit` and `svc.emitMany`: each event without an `eventId` gets one (a ULID) before the first try, and a
 * transient failure is retried a few times with the same ids, so a lost answer never queues an event twice (the
 * cloud stores an `eventId` once per project).
 *
 * @module
 */
import { ulid } from "ulid";
import type { EmitResult, EventInput } from "../contract/mod.ts";
import { isSvcError, SvcError } from "../errors/mod.ts";
import { Backoff } from "../retry/mod.ts";
import { type CloudClient, isTransient } from "./cloud_client.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Tries of one emit, the first included. */
export const EMIT_TRIES = 3;

/** Options of {@linkcode emitEvents}. */
export interface EmitOptions {
  /** First retry delay in milliseconds. Default 500. */
  retryMinMs?: number;
  /** Ends the retries (the app is closing). */
  signal?: AbortSignal;
}

/**
 * Posts events, minting the missing ids first and retrying transient failures with them.
 *
 * @param cloud The cloud's client.
 * @param events The events (1..500).
 * @param options The first retry delay and the signal that ends the retries.
 * @returns One result per event, in order.
 * @throws {SvcError} `CLOUD_UNAVAILABLE` (or `CLOUD_CREDENTIALS_REFUSED`) after the last try, with the ids in
 *   `details.eventIds`; a refusal as the cloud answered it.
 */
export async function emitEvents(
  cloud: CloudClient,
  events: readonly EventInput[],
  options: EmitOptions = {},
): Promise<EmitResult[]> {
  const posted = events.map((e) => ({ ...e, eventId: e.eventId ?? ulid(PLATFORM.now()) }));
  const minMs = options.retryMinMs ?? 500;
  const backoff = new Backoff({ minMs, maxMs: minMs * 4 });
  for (let tried = 1;; tried++) {
    try {
      return await cloud.postEvents(posted);
    } catch (error) {
      if (!isTransient(error) || tried >= EMIT_TRIES || options.signal?.aborted) throw withIds(error, posted);
      await backoff.wait(options.signal);
    }
  }
}

/** A transient failure, telling the ids the caller retries with. */
function withIds(error: unknown, posted: readonly { eventId: string }[]): unknown {
  if (!isTransient(error)) return error;
  const code = isSvcError(error) ? error.code : "CLOUD_UNAVAILABLE";
  const message = isSvcError(error) ? error.message : "The cloud cannot be reached";
  return new SvcError(code, `${message}; retry with the same eventId: it is delivered once`, {
    cause: error,
    details: { eventIds: posted.map((e) => e.eventId) },
    headers: { "retry-after": "5" },
  });
}
