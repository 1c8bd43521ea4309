/**
 * The operators' tables (operators, sessions, setup tokens, invites): its steps of each of the cloud's migrations,
 * by version. `cloud/database` applies them in its one ordered list; never edit a step that has shipped: add one to
 * a new version.
 *
 * @module
 */

/** The operators' tables: the statements of each cloud migration that has some, by version. */
export const operatorMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  5: [
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
  ],
  7: [
    // The newest TOTP time step an operator's code was accepted for: a code is accepted only for a
    // later step, so one code cannot be used twice (nor two codes of one step).
    "ALTER TABLE cloud_operators ADD COLUMN totp_step INTEGER",
  ],
  10: [
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
  ],
};
