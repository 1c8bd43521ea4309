/**
 * The zod schemas of every `/v1` request body, query and path: the single
 * description of each shape, used to validate and, later, to document.
 *
 * @module
 */
import { z } from "zod";
import {
  boundedJsonObject,
  METADATA_LIMITS,
  PAYLOAD_LIMITS,
  SCHEMA_LIMITS,
  storedText,
} from "../core/contract/limits.ts";
import { mintKeyBody, scopeName } from "../core/contract/agent_keys.ts";
import { KEY_START_LENGTH } from "../core/contract/secrets.ts";

/** The largest page of violations and of an inbox. */
export const MAX_PAGE = 200;
/** The default page of violations and of an inbox. */
export const DEFAULT_PAGE = 50;
/** The most events in one batch, and the most ids in one acknowledgement. */
export const MAX_BATCH = 500;
/** The longest long poll, in seconds. */
export const MAX_WAIT_SECONDS = 20;

const shortText = storedText(1, 200);
const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();

/** An ISO 8601 timestamp (date-time with `Z` or an offset, or a date), normalised to UTC with milliseconds. */
const timestamp = z.string().refine(
  (value) => (isoDateTime.safeParse(value).success || isoDate.safeParse(value).success) && !isNaN(Date.parse(value)),
  "Must be an ISO 8601 timestamp, such as 2025-01-31T12:00:00.000Z",
).transform((value) => new Date(value).toISOString());

/** A query value that must be a non-negative integer. */
const count = z.string().regex(/^\d{1,40}$/, "Must be a non-negative integer")
  .transform((digits) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER));

/** A page size: `DEFAULT_PAGE` when absent, clamped to `MAX_PAGE`. */
const pageSize = (min: number) =>
  count.refine((n) => n >= min, `Must be at least ${min}`).default(DEFAULT_PAGE)
    .transform((n) => Math.min(n, MAX_PAGE));

/** The severities of a violation. */
export const severity = z.enum(["info", "warning", "severe"]);

/** One intent of an uploaded manifest; `input` and `output` are JSON Schema objects. */
export const manifestIntent = z.object({
  name: shortText,
  title: storedText(0, 500),
  requiredScopes: z.array(scopeName).max(100),
  input: boundedJsonObject(SCHEMA_LIMITS),
  output: boundedJsonObject(SCHEMA_LIMITS),
});

/** The body of `PUT /v1/sdk/intents`. */
export const manifestBody = z.object({
  intents: z.array(manifestIntent).max(1000).superRefine((intents, ctx) => {
    const seen = new Set<string>();
    intents.forEach((intent, i) => {
      if (seen.has(intent.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: "Duplicate intent name" });
      seen.add(intent.name);
    });
  }),
  scopes: z.array(scopeName).max(1000).optional(),
});

/** The body of `POST /v1/sdk/violations`. */
export const violationBody = z.object({
  violation: z.object({
    apiKeyId: z.uuid(),
    userId: shortText.nullish(),
    intent: shortText.nullish(),
    kind: storedText(1, 100),
    severity,
    message: storedText(0, 2000).nullish(),
    metadata: boundedJsonObject(METADATA_LIMITS).nullish(),
    at: timestamp.nullish(),
  }),
});

/** The query of `GET /v1/sdk/violations`. */
export const violationsQuery = z.object({
  keyId: shortText.optional(),
  kind: storedText(1, 100).optional(),
  severity: severity.optional(),
  since: timestamp.optional(),
  limit: pageSize(0),
  offset: count.default(0),
});

/** One event, the body of `POST /v1/events`. */
export const eventBody = z.object({
  eventId: shortText,
  type: shortText,
  agentId: shortText,
  payload: boundedJsonObject(PAYLOAD_LIMITS),
});

/** A batch of events, the other body of `POST /v1/events`. */
export const eventBatchBody = z.object({ events: z.array(eventBody).min(1).max(MAX_BATCH) });

/** The body of `POST /v1/events`: a batch or one event. */
export const eventsBody = z.union([eventBody, eventBatchBody]);

/** The query of the inbox routes. */
export const inboxQuery = z.object({
  cursor: count.default(0),
  limit: pageSize(1),
  wait: z.string().regex(/^\d{1,2}(\.\d{1,3})?$/, "Must be a number of seconds").transform(Number)
    .refine((s) => s <= MAX_WAIT_SECONDS, `Must be at most ${MAX_WAIT_SECONDS}`).default(0),
});

/** The body of the acknowledgement routes. */
export const ackBody = z.object({ inboxIds: z.array(z.int().min(1)).min(1).max(MAX_BATCH) });

/** The path of the tooling routes. */
export const agentPath = z.object({ agentId: shortText });

/** The body of `POST /v1/sdk/keys`: `POST /svc/keys` plus the owner. */
export const cloudMintKeyBody = mintKeyBody.extend({ userId: shortText });

/** The query of `GET /v1/sdk/keys`. */
export const keysQuery = z.object({ userId: shortText });

/** The path of the routes on one key. */
export const keyPath = z.object({ id: z.uuid() });

/** The path of `DELETE /v1/sdk/keys/:id`: any id that is not this project's key, UUID or not, is simply not found. */
export const revokeKeyPath = z.object({ id: z.string().min(1).max(200) });

/** The body of `POST /v1/sdk/keys/verify`. */
export const verifyKeyBody = z.object({ key: z.string().max(1000) });

/** The body of `PUT /v1/sdk/keys/:id`: a key record mirrored by a hybrid app, hash only. */
export const mirrorKeyBody = mintKeyBody.pick({ name: true, scopes: true }).extend({
  userId: shortText,
  agentId: shortText,
  hash: z.string().regex(/^[0-9a-f]{64}$/, "Must be a SHA-256 hex digest"),
  start: z.string().startsWith("svc_live_").max(KEY_START_LENGTH),
  createdAt: timestamp,
  revokedAt: timestamp.nullable(),
});
