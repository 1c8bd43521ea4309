/**
 * The OAuth tables, one migration appended to the app's list: registered
 * clients, authorization codes and refresh tokens (hashed), and grants. They
 * live in the app's database beside the keys they mint.
 *
 * @module
 */

/** The migration's name and statements (its version is its place in the app's list). */
export const OAUTH_MIGRATION: { readonly name: string; readonly statements: string[] } = {
  name: "OAuth clients, codes, grants and refresh tokens",
  statements: [
    // Clients registered through RFC 7591; pre-registered and Client ID Metadata Document clients are not stored.
    `CREATE TABLE app_oauth_clients (
      client_id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      redirect_uris TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    // One row per consent: the key it minted last (`key_id`) is the access token in force.
    `CREATE TABLE app_oauth_grants (
      id TEXT PRIMARY KEY,
      client_id TEXT NOT NULL,
      client_name TEXT NOT NULL,
      user_id TEXT NOT NULL,
      scopes TEXT NOT NULL,
      resource TEXT NOT NULL,
      key_id TEXT,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    )`,
    "CREATE INDEX app_oauth_grants_by_key ON app_oauth_grants (key_id)",
    // Codes are kept after use (used_at) so a replay is recognised and ends the grant it produced.
    `CREATE TABLE app_oauth_codes (
      hash TEXT PRIMARY KEY,
      client_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      scopes TEXT NOT NULL,
      code_challenge TEXT NOT NULL,
      resource TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER,
      grant_id TEXT
    )`,
    `CREATE TABLE app_oauth_refresh_tokens (
      hash TEXT PRIMARY KEY,
      grant_id TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    )`,
    "CREATE INDEX app_oauth_refresh_tokens_by_grant ON app_oauth_refresh_tokens (grant_id)",
    // The key that signs consent forms (CSRF), shared by every process on the database.
    "CREATE TABLE app_oauth_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
  ],
};

/**
 * The migration after it: registered clients that never completed an authorization expire (`used_at` stays NULL
 * until a code is issued to the client; those registered before are counted as used when they have a grant or a
 * code), and a user's grants of a client are found by index (whether the user consented to it before).
 */
export const OAUTH_UNUSED_CLIENTS_MIGRATION: { readonly name: string; readonly statements: string[] } = {
  name: "OAuth clients never used expire; grants found by client and user",
  statements: [
    "ALTER TABLE app_oauth_clients ADD COLUMN used_at TEXT",
    `UPDATE app_oauth_clients SET used_at = created_at
      WHERE client_id IN (SELECT client_id FROM app_oauth_grants) OR client_id IN (SELECT client_id FROM app_oauth_codes)`,
    "CREATE INDEX app_oauth_clients_unused ON app_oauth_clients (created_at) WHERE used_at IS NULL",
    "CREATE INDEX app_oauth_grants_by_client ON app_oauth_grants (client_id, user_id)",
  ],
};
