/**
 * Values as they cross the wire: timestamps, and the integers and seconds of
 * query strings (pages, cursors, waits), each one zod schema that validates,
 * types and documents them (as `integer`, `number` or `date-time`).
 *
 * @module
 */
import { z } from "zod";

/** The largest page of violations, keys, an inbox or the revocation feed. */
export const MAX_PAGE = 200;
/** The default page size. */
export const DEFAULT_PAGE = 50;
/** The most events in one batch, and the most ids in one acknowledgement. */
export const MAX_BATCH = 500;
/** The longest long poll, in seconds. */
export const MAX_WAIT_SECONDS = 20;

/** An ISO 8601 timestamp as answered: UTC with milliseconds. */
export const isoTimestamp: z.ZodISODateTime = z.iso.datetime();

/**
 * An ISO 8601 timestamp as accepted (a date-time with `Z` or an offset, or a
 * date), normalised to UTC with milliseconds.
 */
export const timestampInput: z.ZodType<string, string> = z.union([z.iso.datetime({ offset: true }), z.iso.date()])
  .refine((value) => !isNaN(Date.parse(value)), "Must be an ISO 8601 timestamp, such as 2025-01-31T12:00:00.000Z")
  .transform((value) => new Date(value).toISOString());

const NOT_A_COUNT = "Must be a non-negative integer";

/** A query string's digits as a number (clamped to a safe integer); anything else is left to fail. */
function digits(value: unknown): unknown {
  return typeof value === "string" && /^\d{1,40}$/.test(value)
    ? Math.min(Number(value), Number.MAX_SAFE_INTEGER)
    : value;
}

/**
 * A non-negative integer in a query string.
 *
 * @param min The smallest accepted.
 * @returns The schema (documented as an `integer`).
 */
export function queryInteger(min = 0): z.ZodType<number, unknown> {
  return z.preprocess(digits, z.int({ error: NOT_A_COUNT }).min(min, `Must be at least ${min}`));
}

/**
 * A page size in a query string: {@linkcode DEFAULT_PAGE} when absent, clamped to {@linkcode MAX_PAGE}.
 *
 * @param min The smallest accepted.
 * @returns The schema.
 */
export function pageSize(min: number): z.ZodType<number, unknown> {
  return queryInteger(min).default(DEFAULT_PAGE).transform((n) => Math.min(n, MAX_PAGE)).describe(
    `Page size, default ${DEFAULT_PAGE}; values above ${MAX_PAGE} are clamped to ${MAX_PAGE}`,
  );
}

/** A long poll's wait in a query string: seconds, 0 to {@linkcode MAX_WAIT_SECONDS}, default 0. */
export const waitSeconds: z.ZodType<number, unknown> = z.preprocess(
  (value) => typeof value === "string" && /^\d{1,2}(\.\d{1,3})?$/.test(value) ? Number(value) : value,
  z.number({ error: "Must be a number of seconds" }).min(0).max(MAX_WAIT_SECONDS),
).default(0).describe(`Seconds to hold an empty poll open, 0 to ${MAX_WAIT_SECONDS}`);
