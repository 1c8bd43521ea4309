/**
 * The one check of `createSvc`'s configuration: a zod schema, a union on `mode`, that refuses a mistake
 * when the app starts (not at its first request) with a message that names the option and how to write it.
 *
 * @module
 */
import { z } from "zod";
import { autoRevokePolicySchema, MAX_KEY_LIFETIME_DAYS } from "../contract/mod.ts";
import { oauthConfigSchema } from "../oauth/mod.ts";
import type { SvcConfig } from "./svc_config.ts";
import type { ErrorLogger } from "../logging/mod.ts";

/** Why hybrid mode refuses an in-memory `storage` (a URL, at once; an injected Client, when `ready` settles). */
export const HYBRID_IN_MEMORY: string =
  'mode "hybrid" keeps its agent keys in `storage` and mirrors them to the cloud: on :memory: ' +
  "the app would forget them at a restart while the cloud still accepts them. Give `storage` a file: (or remote) " +
  'URL, such as "file:./data/app.db", or a libSQL Client on one';

/** Whether a storage setting is an in-memory database (the default). */
function isInMemory(storage: unknown): boolean {
  return storage === undefined || (typeof storage === "string" && /^(file:)?:memory:/.test(storage));
}

/** A function option, required or optional, refused with `message` when it is something else. */
function fn<T>(message: string) {
  return z.custom<T>((value) => typeof value === "function", { error: message });
}

/** A number option that must be positive and finite. */
function positive(name: string, unit: "milliseconds" | "items" | "bytes") {
  return z.number({ error: `${name} must be a positive number of ${unit}` })
    .positive({ error: `${name} must be a positive number of ${unit}` })
    .refine(Number.isFinite, { error: `${name} must be a positive number of ${unit}` });
}

/** What a libSQL URL starts with (a path needs `file:`). */
const LIBSQL_URL = /^(:memory:|file:|libsql:|https?:|wss?:)/;

/** What to write instead of a `storage` string that is not a libSQL URL. */
function notAUrl(input: string): string {
  if (input === "") {
    return '`storage` is empty: give a libSQL URL such as "file:./data/app.db", or leave it out for :memory:';
  }
  const fix = JSON.stringify(`file:${input}`);
  return `storage ${JSON.stringify(input)} is not a libSQL URL: write ${fix} for a file ` +
    "(or libsql://, https:// for a remote database, :memory: for none)";
}

const storageSchema = z.union([
  z.string().refine((url) => LIBSQL_URL.test(url), { error: (issue) => notAUrl(String(issue.input)) }),
  z.custom<Exclude<SvcConfig["storage"], string>>(
    (value) =>
      typeof value === "object" && value !== null && typeof (value as { execute?: unknown }).execute === "function",
  ),
], { error: '`storage` must be a libSQL URL such as "file:./data/app.db" or a @libsql/client Client' });

const rateSchema = z.union([
  z.literal(false),
  z.object({
    limit: z.int({ error: "must be a whole number of requests, at least 1" }).min(1, { error: "must be at least 1" }),
    windowMs: z.number({ error: "must be a number of milliseconds" }).positive({ error: "must be above 0" }),
    maxEntries: z.int().min(1).optional(),
  }),
], {
  error: "must be { limit, windowMs } (limit >= 1 requests per windowMs > 0 milliseconds), or false to turn it off",
});

/** The rate limits; `false` (all off) is read as each one off, so that a wrong one is named by its path. */
const rateLimitSchema = z.preprocess(
  (value) => value === false ? { perKey: false, refusalsPerAddress: false } : value,
  z.object({ perKey: rateSchema.optional(), refusalsPerAddress: rateSchema.optional() }, {
    error: "rateLimit must be { perKey?, refusalsPerAddress? } or false",
  }),
);

const lifetimeDays = (name: string) =>
  z.int({ error: `keys.${name} must be a whole number of days, 1 to ${MAX_KEY_LIFETIME_DAYS}` })
    .min(1, { error: `keys.${name} must be at least 1 day` })
    .max(MAX_KEY_LIFETIME_DAYS, { error: `keys.${name} must be at most ${MAX_KEY_LIFETIME_DAYS} days` });

/** `keys: { defaultLifetimeDays, maxLifetimeDays }`, the default within the maximum. */
const keysSchema = z.object({
  defaultLifetimeDays: lifetimeDays("defaultLifetimeDays").optional(),
  maxLifetimeDays: lifetimeDays("maxLifetimeDays").optional(),
}, { error: "keys must be { defaultLifetimeDays?, maxLifetimeDays? } (days)" }).strict().refine(
  (k) =>
    k.defaultLifetimeDays === undefined || k.maxLifetimeDays === undefined ||
    k.defaultLifetimeDays <= k.maxLifetimeDays,
  { error: "keys.defaultLifetimeDays must not be above keys.maxLifetimeDays", path: ["defaultLifetimeDays"] },
);

const optionsShape = {
  userResolver: fn<SvcConfig["userResolver"]>(
    "`userResolver` is required: a function (req) => userId | null that reads your app's session " +
      "(null when signed out), such as (req) => mySession(req)?.userId ?? null",
  ),
  scopes: z.union([
    z.array(z.union([
      z.string({ error: "every scope must be a string" }),
      z.strictObject({ name: z.string(), description: z.string().min(1).max(300).optional() }),
    ], { error: "every scope must be a name or { name, description }" })),
    z.record(z.string(), z.string().min(1).max(300)),
  ], {
    error: '`scopes` is required: the scope names your intents may require, such as ["notes:read", "notes:write"], ' +
      'or their descriptions keyed by name, such as { "notes:write": "Create and change your notes" }',
  }),
  intents: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: "`intents` must be an array of defineIntent(…) or an object of them keyed by name",
  }).optional(),
  strictIntents: z.boolean().optional(),
  validateResults: z.boolean().optional(),
  onAgentIntent: fn<SvcConfig["onAgentIntent"]>("`onAgentIntent` must be a function (intent, payload, user)")
    .optional(),
  onViolation: fn<SvcConfig["onViolation"]>("`onViolation` must be a function (violation) => void").optional(),
  violationRetentionMs: positive("violationRetentionMs", "milliseconds").optional(),
  activity: z.union([
    z.literal(false),
    z.strictObject({
      retentionDays: z.number().int().min(1).max(3650).optional(),
    }),
  ], { error: "`activity` must be false or { retentionDays } (whole days, 1 to 3650)" }).optional(),
  purgeIntervalMs: positive("purgeIntervalMs", "milliseconds").optional(),
  storage: storageSchema.optional(),
  storageAuthToken: z.string().optional(),
  sharedInbox: z.boolean().optional(),
  keys: keysSchema.optional(),
  bodyLimit: positive("bodyLimit", "bytes").optional(),
  rateLimit: rateLimitSchema.optional(),
  logger: z.union([z.literal("json"), fn<ErrorLogger>("")], {
    error: '`logger` must be a function (message, cause) or "json"',
  }).optional(),
  mcp: z.union([
    z.boolean(),
    z.strictObject({
      listTools: z.enum(["granted", "all"]).optional(),
      allowedOrigins: z.array(z.url({
        protocol: /^https?$/,
        error: 'each of mcp.allowedOrigins must be an origin such as "https://chat.example.com"',
      })).optional(),
    }),
  ], {
    error: 'mcp must be true, false or { listTools?: "granted" | "all", allowedOrigins?: ["https://…"] }',
  }).optional(),
  openapi: z.boolean().optional(),
  approvals: z.strictObject({
    pageUrl: z.string().min(1, { error: "approvals.pageUrl must be a URL or a path" }).optional(),
    maxPendingPerKey: z.int({ error: "approvals.maxPendingPerKey must be a whole number from 1 to 1000" }).min(1)
      .max(1000, { error: "approvals.maxPendingPerKey must be a whole number from 1 to 1000" }).optional(),
  }, { error: "approvals must be { pageUrl?, maxPendingPerKey? }" }).optional(),
  onApprovalRequested: fn<SvcConfig["onApprovalRequested"]>(
    "`onApprovalRequested` must be a function (approval) => void",
  ).optional(),
};

/** A string that starts with `prefix`, refused with `message` when absent or otherwise. */
function prefixed(prefix: string, message: string) {
  return z.string({ error: message }).startsWith(prefix, { error: message });
}

/** The cloud settings of a mode that uses the cloud, with messages that say where each value comes from. */
function cloudSchema(mode: "hybrid" | "cloud") {
  const needs = `mode "${mode}" needs`;
  const sdkSecretMessage = `${needs} cloud.sdkSecret (svcs_…): the project's SDK secret; keep it in server-side ` +
    "secret storage such as SVC_SDK_SECRET and pass it here, or a function that reads it (called before each call)";
  return z.looseObject({
    endpoint: z.url({
      protocol: /^https?$/,
      error: `${needs} cloud.endpoint: the cloud's base URL, such as "https://svc.example.com"`,
    }),
    projectId: prefixed(
      "prj_",
      `${needs} cloud.projectId (prj_…): the project's id, shown by the cloud's dashboard; ` +
        "keep it in SVC_PROJECT_ID and pass it here",
    ),
    sdkSecret: z.union([prefixed("svcs_", sdkSecretMessage), z.custom<() => string>((v) => typeof v === "function")], {
      error: sdkSecretMessage,
    }),
    label: z.string({ error: "cloud.label must be a string of 1 to 100 characters" }).min(1).max(100, {
      error: "cloud.label must be at most 100 characters",
    }).optional(),
    maxRevocationLagMs: z.union([positive("cloud.maxRevocationLagMs", "milliseconds"), z.literal(false)], {
      error: "cloud.maxRevocationLagMs must be a positive number of milliseconds, or false for no bound",
    }).optional(),
    requireAtStart: z.boolean({ error: "cloud.requireAtStart must be true or false" }).optional(),
    timeoutMs: positive("cloud.timeoutMs", "milliseconds").optional(),
    retryMinMs: positive("cloud.retryMinMs", "milliseconds").optional(),
    retryMaxMs: positive("cloud.retryMaxMs", "milliseconds").optional(),
    keyCacheTtlMs: positive("cloud.keyCacheTtlMs", "milliseconds").optional(),
    setAsideRetentionMs: positive("cloud.setAsideRetentionMs", "milliseconds").optional(),
    outboxLimit: positive("cloud.outboxLimit", "items").optional(),
  }, { error: `${needs} cloud: { endpoint, projectId, sdkSecret }` });
}

/** The one schema of `createSvc`'s configuration (a missing `mode` is read as `local`). */
const svcConfigSchema = z.discriminatedUnion("mode", [
  z.looseObject({
    ...optionsShape,
    mode: z.literal("local"),
    cloud: z.undefined({
      error: '`cloud` is set but mode is "local": set mode: "hybrid" (keys here, mirrored to the cloud) or ' +
        'mode: "cloud" (keys in the cloud), or leave `cloud` out',
    }).optional(),
    autoRevoke: autoRevokePolicySchema.optional(),
    oauth: oauthConfigSchema.optional(),
  }),
  z.looseObject({
    ...optionsShape,
    mode: z.literal("hybrid"),
    cloud: cloudSchema("hybrid"),
    autoRevoke: autoRevokePolicySchema.optional(),
    oauth: oauthConfigSchema.optional(),
  }).refine((config) => !isInMemory(config.storage), { error: HYBRID_IN_MEMORY, path: ["storage"] }),
  z.looseObject({
    ...optionsShape,
    mode: z.literal("cloud"),
    cloud: cloudSchema("cloud"),
    autoRevoke: z.undefined({
      error: "autoRevoke applies to keys the app keeps; in cloud mode set the project's policy (PUT /v1/sdk/policy)",
    }).optional(),
    oauth: oauthConfigSchema.optional(),
  }),
], { error: '`mode` must be "local" (the default), "hybrid" or "cloud"' });

/**
 * Checks a configuration, all of it at once, before anything is opened.
 *
 * @param config What the app passed to `createSvc` (a missing `mode` is `local`).
 * @throws {TypeError} `createSvc: …`, one line per mistake, each naming the option and how to write it.
 */
export function checkSvcConfig(config: SvcConfig): void {
  const given: unknown = config;
  const withMode = typeof given === "object" && given !== null && !("mode" in given && given.mode !== undefined)
    ? { ...given, mode: "local" }
    : given;
  const parsed = svcConfigSchema.safeParse(withMode);
  if (parsed.success) return;
  const lines = [...new Set(parsed.error.issues.map(describe))];
  const list = lines.map((line) => `\n- ${line}`).join("");
  throw new TypeError(
    `createSvc: ${lines.length === 1 ? lines[0] : `${lines.length} mistakes in the configuration:${list}`}`,
  );
}

/** One issue as a line: its own message when it names the option, else prefixed by the option's path. */
function describe(issue: z.core.$ZodIssue): string {
  const path = issue.path.join(".");
  if (path === "" || issue.message.includes(path)) return issue.message;
  return issue.message.startsWith("must ") ? `${path} ${issue.message}` : `${path}: ${issue.message}`;
}
