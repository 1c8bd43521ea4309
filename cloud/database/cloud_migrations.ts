/**
 * The cloud's schema, as numbered migrations: one ordered list, each version applying the steps its features own
 * (`cloud/keys/key_migrations.ts`, `cloud/feed/feed_migrations.ts`, …) in a fixed order. Every table starts with
 * `cloud_` so the cloud can share a database with the app side's `app_*` tables.
 *
 * @module
 */
import type { Migration } from "../../core/db/mod.ts";
import { approvalMigrationSteps } from "../approvals/mod.ts";
import { activityMigrationSteps } from "../activity/mod.ts";
import { appMigrationSteps } from "../apps/mod.ts";
import { auditMigrationSteps } from "../audit/mod.ts";
import { feedMigrationSteps } from "../feed/mod.ts";
import { inboxMigrationSteps } from "../inbox/mod.ts";
import { keyMigrationSteps } from "../keys/mod.ts";
import { operatorMigrationSteps } from "../operators/mod.ts";
import { projectMigrationSteps } from "../projects/mod.ts";
import { violationMigrationSteps } from "../violations/mod.ts";

/** The table that records which cloud migrations are applied. */
export const CLOUD_MIGRATIONS_TABLE = "svc_cloud_migrations";

/** Each feature's migration steps (its statements of each version), by the name the order below uses. */
export const CLOUD_FEATURE_MIGRATIONS = {
  approvals: approvalMigrationSteps,
  activity: activityMigrationSteps,
  apps: appMigrationSteps,
  audit: auditMigrationSteps,
  feed: feedMigrationSteps,
  inbox: inboxMigrationSteps,
  keys: keyMigrationSteps,
  operators: operatorMigrationSteps,
  projects: projectMigrationSteps,
  violations: violationMigrationSteps,
} as const;

/** A feature that owns migration steps. */
export type CloudMigrationFeature = keyof typeof CLOUD_FEATURE_MIGRATIONS;

/** One version of the cloud's schema: its name and the features whose steps it applies, in this order. */
export interface CloudMigrationOrder {
  /** The schema version it produces. */
  version: number;
  /** A short description (recorded with the version: never changed once shipped). */
  name: string;
  /** The features whose steps of this version are applied, in this order. */
  features: readonly CloudMigrationFeature[];
}

/**
 * The one ordered list, oldest first. Never edit a version that has shipped: add the next (its steps in the
 * features that own them, and here the features in the order they apply).
 */
export const CLOUD_MIGRATION_ORDER: readonly CloudMigrationOrder[] = [
  { version: 1, name: "projects and agent keys", features: ["projects", "keys"] },
  { version: 2, name: "intent manifests and violations", features: ["projects", "violations"] },
  { version: 3, name: "events and agent inboxes", features: ["inbox"] },
  { version: 4, name: "violation totals kept by triggers", features: ["violations"] },
  {
    version: 5,
    name: "operators, sessions, setup tokens, audit log, project settings, violations by hour",
    features: ["operators", "audit", "projects", "keys", "violations"],
  },
  {
    version: 6,
    name: "revocation feed, revocation reasons, auto-revoke policy",
    features: ["keys", "feed", "projects"],
  },
  {
    version: 7,
    name: "key ids and hashes unique per project, TOTP steps spent once",
    features: ["keys", "feed", "operators"],
  },
  { version: 8, name: "an inbox's acknowledged items by agent", features: ["inbox"] },
  { version: 9, name: "connected apps", features: ["apps"] },
  { version: 10, name: "operator invites, the audit log by target", features: ["operators", "audit"] },
  {
    version: 11,
    name: "key expiry and reroll: keys that expire and scheduled revocations",
    features: ["keys", "projects", "feed"],
  },
  { version: 12, name: "the operator's key search, key counts kept by triggers", features: ["keys"] },
  { version: 13, name: "a user's revoke-all as a watermark later mirrors respect", features: ["keys"] },
  { version: 14, name: "OAuth grants own their keys", features: ["keys"] },
  {
    version: 15,
    name: "violation reports stored once per report id; audit entries keep when they were received",
    features: ["violations", "audit"],
  },
  { version: 16, name: "connected apps keep the outbox depth they report on their feed polls", features: ["apps"] },
  { version: 17, name: "approvals as apps report them, each step stored once", features: ["approvals"] },
  {
    version: 18,
    name: "the activity record: what agents did, and runs and refusals per key and hour",
    features: ["activity"],
  },
  { version: 19, name: "the inbox as a queue: leases, dead letters, a project's maxDeliveries", features: ["inbox"] },
  {
    version: 20,
    name: "counters of project and key changes, so a node keeps its cached auth while other nodes commit events",
    features: ["projects", "keys"],
  },
];

/** The cloud's migrations, oldest first, as the runner applies them. */
export const cloudMigrations: readonly Migration[] = CLOUD_MIGRATION_ORDER.map(({ version, name, features }) => ({
  version,
  name,
  statements: features.flatMap((feature) => [...(CLOUD_FEATURE_MIGRATIONS[feature][version] ?? [])]),
}));
