/**
 * The cloud's schema, as numbered migrations. Every table starts with
 * `cloud_` so the cloud can share a database with the app side's `app_*` tables.
 *
 * @module
 */
import type { Migration } from "../../core/db/mod.ts";

/** The table that records which cloud migrations are applied. */
export const CLOUD_MIGRATIONS_TABLE = "svc_cloud_migrations";

/** The feed row of a key revoked by an update (migration 6; re-created by 7 with its table, and by 10 with the feed's). */
const KEY_REVOKED_TRIGGER = `CREATE TRIGGER cloud_keys_revoked AFTER UPDATE OF revoked_at ON cloud_keys
        WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL BEGIN
        INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason) VALUES (NEW.project_id,
          COALESCE((SELECT MAX(seq) FROM cloud_revocations WHERE project_id = NEW.project_id), 0) + 1,
          NEW.id, NEW.revoked_at, COALESCE(NEW.revoke_reason, 'app'));
      END`;

/** The feed row of a key stored already revoked (migration 6; re-created by 7 and by 10, as the one above). */
const KEY_INSERTED_REVOKED_TRIGGER = `CREATE TRIGGER cloud_keys_inserted_revoked AFTER INSERT ON cloud_keys
        WHEN NEW.revoked_at IS NOT NULL BEGIN
        INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason) VALUES (NEW.project_id,
          COALESCE((SELECT MAX(seq) FROM cloud_revocations WHERE project_id = NEW.project_id), 0) + 1,
          NEW.id, NEW.revoked_at, COALESCE(NEW.revoke_reason, 'app'));
      END`;

/** The columns `cloud_keys` had from migration 6 on, copied as they are by migration 7. */
const KEY_COLUMNS_V6 =
  "id, project_id, user_id, name, scopes, agent_id, hash, start, created_at, last_used_at, revoked_at, revoke_reason";

/** The cloud's migrations, oldest first. Never edit one that has shipped: add the next. */
export const cloudMigrations: readonly Migration[] = [
  {
    version: 1,
    name: "projects and agent keys",
    statements: [
      `CREATE TABLE cloud_projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        secret_rotated_at TEXT
      )`,
      `CREATE TABLE cloud_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        scopes TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        start TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      )`,
      "CREATE INDEX cloud_keys_by_user ON cloud_keys (project_id, user_id, created_at, id)",
      `CREATE TABLE cloud_agent_claims (
        project_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (project_id, agent_id)
      )`,
    ],
  },
  {
    version: 2,
    name: "intent manifests and violations",
    statements: [
      `CREATE TABLE cloud_manifests (
        project_id TEXT PRIMARY KEY REFERENCES cloud_projects (id),
        intents TEXT NOT NULL,
        scopes TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE TABLE cloud_violations (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        key_id TEXT NOT NULL,
        user_id TEXT,
        intent TEXT,
        kind TEXT NOT NULL,
        severity TEXT NOT NULL,
        message TEXT,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      // One index per filter, each ending in the sort order, so every combination
      // seeks by its most selective equality and reads newest first without sorting.
      "CREATE INDEX cloud_violations_by_time ON cloud_violations (project_id, created_at DESC, id DESC)",
      "CREATE INDEX cloud_violations_by_key ON cloud_violations (project_id, key_id, created_at DESC, id DESC)",
      "CREATE INDEX cloud_violations_by_kind ON cloud_violations (project_id, kind, created_at DESC, id DESC)",
      "CREATE INDEX cloud_violations_by_severity ON cloud_violations (project_id, severity, created_at DESC, id DESC)",
    ],
  },
  {
    version: 3,
    name: "events and agent inboxes",
    statements: [
      // Each event goes to exactly one inbox, so an event and its inbox item are
      // one row; AUTOINCREMENT keeps inbox ids (the cursors) from ever being reused.
      `CREATE TABLE cloud_events (
        inbox_id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        event_id TEXT NOT NULL,
        type TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        deliveries INTEGER NOT NULL DEFAULT 0,
        acked_at TEXT,
        UNIQUE (project_id, event_id)
      )`,
      "CREATE INDEX cloud_events_waiting ON cloud_events (project_id, agent_id, inbox_id) WHERE acked_at IS NULL",
      "CREATE INDEX cloud_events_acknowledged ON cloud_events (acked_at) WHERE acked_at IS NOT NULL",
    ],
  },
  {
    version: 4,
    name: "violation totals kept by triggers",
    statements: [
      // The total of an unfiltered (or kind/severity-filtered) violations page, without counting
      // millions of rows: one small row per project, kind and severity, kept exact by triggers.
      `CREATE TABLE cloud_violation_counts (
        project_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        severity TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (project_id, kind, severity)
      ) WITHOUT ROWID`,
      `INSERT INTO cloud_violation_counts (project_id, kind, severity, n)
        SELECT project_id, kind, severity, COUNT(*) FROM cloud_violations GROUP BY project_id, kind, severity`,
      `CREATE TRIGGER cloud_violations_counted AFTER INSERT ON cloud_violations BEGIN
        INSERT INTO cloud_violation_counts (project_id, kind, severity, n)
          VALUES (NEW.project_id, NEW.kind, NEW.severity, 1)
          ON CONFLICT (project_id, kind, severity) DO UPDATE SET n = n + 1;
      END`,
      `CREATE TRIGGER cloud_violations_uncounted AFTER DELETE ON cloud_violations BEGIN
        UPDATE cloud_violation_counts SET n = n - 1
          WHERE project_id = OLD.project_id AND kind = OLD.kind AND severity = OLD.severity;
      END`,
    ],
  },
  {
    version: 5,
    name: "operators, sessions, setup tokens, audit log, project settings, violations by hour",
    statements: [
      // Dashboard operators. The password and recovery codes only as hashes; the TOTP secret is
      // kept as is, since checking a code needs it.
      `CREATE TABLE cloud_operators (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
        password_hash TEXT NOT NULL,
        totp_secret TEXT,
        recovery_code_hashes TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      // A session is found by the hash of its cookie's token; the token itself is never stored.
      `CREATE TABLE cloud_sessions (
        token_hash TEXT PRIMARY KEY,
        operator_id TEXT NOT NULL REFERENCES cloud_operators (id),
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        source_address TEXT
      )`,
      "CREATE INDEX cloud_sessions_by_operator ON cloud_sessions (operator_id)",
      `CREATE TABLE cloud_setup_tokens (
        token_hash TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
      )`,
      // Who changed what, from where, when: append-only (triggers refuse updates and deletes),
      // never holding a secret, kept when its project is deleted.
      `CREATE TABLE cloud_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        detail TEXT NOT NULL DEFAULT '{}',
        source_address TEXT,
        created_at TEXT NOT NULL
      )`,
      "CREATE INDEX cloud_audit_by_time ON cloud_audit (created_at DESC, id DESC)",
      "CREATE INDEX cloud_audit_by_project ON cloud_audit (project_id, created_at DESC, id DESC)",
      "CREATE INDEX cloud_audit_by_action ON cloud_audit (action, created_at DESC, id DESC)",
      `CREATE TRIGGER cloud_audit_no_update BEFORE UPDATE ON cloud_audit BEGIN
        SELECT RAISE(ABORT, 'cloud_audit is append-only');
      END`,
      `CREATE TRIGGER cloud_audit_no_delete BEFORE DELETE ON cloud_audit BEGIN
        SELECT RAISE(ABORT, 'cloud_audit is append-only');
      END`,
      // Per-project settings an operator changes (NULL: the server's default).
      `CREATE TABLE cloud_project_settings (
        project_id TEXT PRIMARY KEY REFERENCES cloud_projects (id),
        retention_ms INTEGER,
        updated_at TEXT NOT NULL
      )`,
      // Keys of a project across users, newest first, for listing with filters.
      "CREATE INDEX cloud_keys_by_project ON cloud_keys (project_id, created_at DESC, id DESC)",
      // Violations per project, hour and severity, kept exact by triggers like the totals, so a
      // 24-hour or 30-day chart reads at most 720 small rows per severity at any table size.
      `CREATE TABLE cloud_violation_hours (
        project_id TEXT NOT NULL,
        hour TEXT NOT NULL,
        severity TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (project_id, hour, severity)
      ) WITHOUT ROWID`,
      `INSERT INTO cloud_violation_hours (project_id, hour, severity, n)
        SELECT project_id, substr(created_at, 1, 13), severity, COUNT(*) FROM cloud_violations
        GROUP BY project_id, substr(created_at, 1, 13), severity`,
      `CREATE TRIGGER cloud_violations_hour_counted AFTER INSERT ON cloud_violations BEGIN
        INSERT INTO cloud_violation_hours (project_id, hour, severity, n)
          VALUES (NEW.project_id, substr(NEW.created_at, 1, 13), NEW.severity, 1)
          ON CONFLICT (project_id, hour, severity) DO UPDATE SET n = n + 1;
      END`,
      `CREATE TRIGGER cloud_violations_hour_uncounted AFTER DELETE ON cloud_violations BEGIN
        UPDATE cloud_violation_hours SET n = n - 1
          WHERE project_id = OLD.project_id AND hour = substr(OLD.created_at, 1, 13) AND severity = OLD.severity;
      END`,
    ],
  },
  {
    version: 6,
    name: "revocation feed, revocation reasons, auto-revoke policy",
    statements: [
      "ALTER TABLE cloud_keys ADD COLUMN revoke_reason TEXT",
      // Every revocation the cloud learns of, numbered per project: the feed apps follow.
      `CREATE TABLE cloud_revocations (
        project_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        revoked_at TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('app', 'tooling', 'dashboard', 'auto')),
        PRIMARY KEY (project_id, seq)
      ) WITHOUT ROWID`,
      // Keys revoked before the feed existed, in the order they were revoked (their reason is unknown).
      `INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason)
        SELECT project_id, ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY revoked_at, id), id, revoked_at,
          'tooling'
        FROM cloud_keys WHERE revoked_at IS NOT NULL`,
      // The feed row is written by the statement that revokes, in its transaction, whoever revokes
      // (tooling, the dashboard, auto-revoke, a mirror); a key already revoked adds no second row.
      KEY_REVOKED_TRIGGER,
      KEY_INSERTED_REVOKED_TRIGGER,
      // The project's auto-revoke policy as JSON, or NULL (off).
      "ALTER TABLE cloud_project_settings ADD COLUMN auto_revoke TEXT",
    ],
  },
  {
    version: 7,
    name: "key ids and hashes unique per project, TOTP steps spent once",
    statements: [
      // A key is identified by (project_id, id), and its hash is unique within its project only, so
      // what one project may store never depends on what another holds. Agent auth finds a key by
      // hash alone: when two projects hold one hash (only on purpose, by someone who knows the key),
      // the first holder, the lowest `seq`, is the one it authenticates as, active or revoked.
      // `seq` is the rowid, named so that VACUUM keeps it; copied from the old rowids, in order.
      `CREATE TABLE cloud_keys_v7 (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        scopes TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        start TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT,
        revoke_reason TEXT,
        UNIQUE (project_id, id),
        UNIQUE (project_id, hash)
      )`,
      // No trigger is on the new table yet: copying revoked keys adds no feed row.
      `INSERT INTO cloud_keys_v7 (seq, ${KEY_COLUMNS_V6}) SELECT rowid, ${KEY_COLUMNS_V6} FROM cloud_keys ORDER BY rowid`,
      // Dropping the table drops its indexes and the feed's triggers; no other table refers to it.
      "DROP TABLE cloud_keys",
      "ALTER TABLE cloud_keys_v7 RENAME TO cloud_keys",
      "CREATE INDEX cloud_keys_by_user ON cloud_keys (project_id, user_id, created_at, id)",
      "CREATE INDEX cloud_keys_by_project ON cloud_keys (project_id, created_at DESC, id DESC)",
      // Agent auth: every holder of a hash, in `seq` order (the rowid ends each index entry).
      "CREATE INDEX cloud_keys_by_hash ON cloud_keys (hash)",
      KEY_REVOKED_TRIGGER,
      KEY_INSERTED_REVOKED_TRIGGER,
      // The newest TOTP time step an operator's code was accepted for: a code is accepted only for a
      // later step, so one code cannot be used twice (nor two codes of one step).
      "ALTER TABLE cloud_operators ADD COLUMN totp_step INTEGER",
    ],
  },
  {
    version: 8,
    name: "an inbox's acknowledged items by agent",
    statements: [
      // The dashboard's view of one inbox's acknowledged items, newest first, and their count; partial like
      // cloud_events_waiting, so the agents' polls keep the small index of waiting items to themselves.
      `CREATE INDEX cloud_events_acknowledged_by_agent ON cloud_events (project_id, agent_id, inbox_id)
        WHERE acked_at IS NOT NULL`,
    ],
  },
  {
    version: 9,
    name: "connected apps",
    statements: [
      // Each app instance that follows a project's revocation feed, as it identified itself on its latest
      // recorded poll (written only after SDK auth passed); dropped 7 days after it was last seen.
      `CREATE TABLE cloud_apps (
        project_id TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        label TEXT NOT NULL,
        mode TEXT CHECK (mode IN ('hybrid', 'cloud')),
        sdk_version TEXT,
        first_seen_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        cursor INTEGER NOT NULL,
        PRIMARY KEY (project_id, instance_id)
      ) WITHOUT ROWID`,
      "CREATE INDEX cloud_apps_by_last_seen ON cloud_apps (last_seen_at)",
    ],
  },
  {
    version: 10,
    name: "operator invites, the audit log by target",
    statements: [
      // A one-time link an admin gives a new operator (only its hash kept): its holder picks a password and joins
      // with the role given, once, before it expires.
      `CREATE TABLE cloud_operator_invites (
        token_hash TEXT PRIMARY KEY,
        email TEXT NOT NULL COLLATE NOCASE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
        invited_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
      )`,
      // The audit log of one key (or any target), newest first: the dashboard's filter by key.
      "CREATE INDEX cloud_audit_by_target ON cloud_audit (target, created_at DESC, id DESC)",
    ],
  },
  {
    version: 11,
    name: "key expiry and reroll: keys that expire and scheduled revocations",
    statements: [
      // When the key stops working (NULL: never): a lifetime given at minting, or an OAuth access token's.
      "ALTER TABLE cloud_keys ADD COLUMN expires_at TEXT",
      // When the key's scheduled revocation takes effect (a reroll's grace end; NULL: none). Until it is written
      // as a revocation (reason `reroll`, so the feed and the audit log carry it), agent auth refuses the key from
      // then on by itself.
      "ALTER TABLE cloud_keys ADD COLUMN revokes_at TEXT",
      // The scheduled revocations not yet written, found by project and time.
      `CREATE INDEX cloud_keys_revocations_due ON cloud_keys (project_id, revokes_at)
        WHERE revokes_at IS NOT NULL AND revoked_at IS NULL`,
      // The project's bounds of a key's lifetime as JSON ({ defaultDays, maxDays }), or NULL (none).
      "ALTER TABLE cloud_project_settings ADD COLUMN key_lifetime TEXT",
      // The feed's reasons gain `reroll` (a grace ended) and `oauth` (a grant ended): SQLite cannot change a
      // CHECK, so the feed is copied as it is into a table with the new one, and the triggers that write it
      // are made again once it has its name back.
      `CREATE TABLE cloud_revocations_v10 (
        project_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        revoked_at TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('app', 'tooling', 'dashboard', 'auto', 'reroll', 'oauth')),
        PRIMARY KEY (project_id, seq)
      ) WITHOUT ROWID`,
      `INSERT INTO cloud_revocations_v10 (project_id, seq, key_id, revoked_at, reason)
        SELECT project_id, seq, key_id, revoked_at, reason FROM cloud_revocations`,
      "DROP TRIGGER cloud_keys_revoked",
      "DROP TRIGGER cloud_keys_inserted_revoked",
      "DROP TABLE cloud_revocations",
      "ALTER TABLE cloud_revocations_v10 RENAME TO cloud_revocations",
      KEY_REVOKED_TRIGGER,
      KEY_INSERTED_REVOKED_TRIGGER,
    ],
  },
  {
    version: 12,
    name: "the operator's key search, key counts kept by triggers",
    statements: [
      // The keys list's search is a prefix of the name, the start or the user: three index ranges
      // (`>= x AND < x || U+10FFFF`), each covering the status and the order, so a page of matches is chosen
      // from the indexes alone and only its rows are read. cloud_keys_by_user gains the status for the same.
      "CREATE INDEX cloud_keys_by_name ON cloud_keys (project_id, name, created_at, id, revoked_at)",
      "CREATE INDEX cloud_keys_by_start ON cloud_keys (project_id, start, created_at, id, revoked_at)",
      "DROP INDEX cloud_keys_by_user",
      "CREATE INDEX cloud_keys_by_user ON cloud_keys (project_id, user_id, created_at, id, revoked_at)",
      // The keys by state of a project (the overview, the keys list's total) without counting a million
      // rows: one small row per project, kept exact by triggers, as cloud_violation_counts.
      `CREATE TABLE cloud_key_counts (
        project_id TEXT PRIMARY KEY,
        active INTEGER NOT NULL,
        revoked INTEGER NOT NULL
      ) WITHOUT ROWID`,
      `INSERT INTO cloud_key_counts (project_id, active, revoked)
        SELECT project_id, SUM(revoked_at IS NULL), SUM(revoked_at IS NOT NULL) FROM cloud_keys GROUP BY project_id`,
      `CREATE TRIGGER cloud_keys_counted AFTER INSERT ON cloud_keys BEGIN
        INSERT INTO cloud_key_counts (project_id, active, revoked)
          VALUES (NEW.project_id, NEW.revoked_at IS NULL, NEW.revoked_at IS NOT NULL)
          ON CONFLICT (project_id) DO UPDATE SET active = active + excluded.active, revoked = revoked + excluded.revoked;
      END`,
      `CREATE TRIGGER cloud_keys_recounted AFTER UPDATE OF revoked_at ON cloud_keys
        WHEN (OLD.revoked_at IS NULL) <> (NEW.revoked_at IS NULL) BEGIN
        UPDATE cloud_key_counts SET active = active + (NEW.revoked_at IS NULL) - (OLD.revoked_at IS NULL),
          revoked = revoked + (NEW.revoked_at IS NOT NULL) - (OLD.revoked_at IS NOT NULL)
          WHERE project_id = NEW.project_id;
      END`,
      `CREATE TRIGGER cloud_keys_uncounted AFTER DELETE ON cloud_keys BEGIN
        UPDATE cloud_key_counts SET active = active - (OLD.revoked_at IS NULL),
          revoked = revoked - (OLD.revoked_at IS NOT NULL) WHERE project_id = OLD.project_id;
      END`,
    ],
  },
  {
    version: 13,
    name: "a user's revoke-all as a watermark later mirrors respect",
    statements: [
      // The latest revocation of every key of a user (`DELETE /v1/sdk/keys?userId=`, the dashboard's revoke-all):
      // a hybrid app's mirror that arrives later for a key of that user created at or before `revoked_at` (minted
      // while its outbox could not reach the cloud) is stored revoked, with this reason, and reaches the feed.
      `CREATE TABLE cloud_user_revocations (
        project_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        revoked_at TEXT NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (project_id, user_id)
      ) WITHOUT ROWID`,
    ],
  },
  {
    version: 14,
    name: "OAuth grants own their keys",
    statements: [
      // The grant (at a cloud-mode app) a key is the access token of; NULL: a key minted by hand.
      "ALTER TABLE cloud_keys ADD COLUMN grant_id TEXT",
      "CREATE INDEX cloud_keys_by_grant ON cloud_keys (project_id, grant_id) WHERE grant_id IS NOT NULL",
      // Grants ended here (a revoke of one of their keys): no key is minted for them again.
      `CREATE TABLE cloud_ended_grants (
        project_id TEXT NOT NULL,
        grant_id TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        PRIMARY KEY (project_id, grant_id)
      ) WITHOUT ROWID`,
    ],
  },
  {
    version: 15,
    name: "violation reports stored once per report id; audit entries keep when they were received",
    statements: [
      // The id an app mints for each report (`reportId`): a retry after a lost answer finds its first
      // delivery here and stores nothing new. Purged with the violation it names.
      `CREATE TABLE cloud_violation_reports (
        project_id TEXT NOT NULL,
        report_id TEXT NOT NULL,
        violation_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (project_id, report_id)
      )`, // a rowid table: purged in chunks by rowid
      "CREATE INDEX cloud_violation_reports_by_time ON cloud_violation_reports (created_at)",
      // When the cloud received an entry; `created_at` is when the action happened (an app's time, for what
      // its outbox delivers late). NULL on entries written before: they were received when they were made.
      "ALTER TABLE cloud_audit ADD COLUMN received_at TEXT",
    ],
  },
  {
    version: 16,
    name: "connected apps keep the outbox depth they report on their feed polls",
    statements: [
      // NULL for an app that does not say (older SDKs): `x-svc-outbox-depth` on its polls.
      "ALTER TABLE cloud_apps ADD COLUMN outbox_depth INTEGER",
    ],
  },
];
