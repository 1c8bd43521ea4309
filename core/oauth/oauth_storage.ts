/**
 * Where the OAuth server keeps what it issues: registered clients, codes,
 * grants and refresh tokens. Codes and refresh tokens are stored as SHA-256
 * hashes; times are milliseconds since the epoch from the server's clock.
 *
 * @module
 */
import { deleteInChunks, type Executor, type SqlRow } from "../db/mod.ts";

/** A client registered through RFC 7591. */
export interface RegisteredClient {
  /** The id the server gave it. */
  clientId: string;
  /** Its self-declared name. */
  name: string;
  /** Its redirect URIs, matched exactly. */
  redirectUris: string[];
  /** ISO 8601. */
  createdAt: string;
}

/** An authorization code, as issued. */
export interface AuthorizationCode {
  /** SHA-256 of the code, hex. */
  hash: string;
  /** The client it was issued to. */
  clientId: string;
  /** The user who consented. */
  userId: string;
  /** The redirect URI of the request, which the token request must repeat. */
  redirectUri: string;
  /** The scopes granted. */
  scopes: string[];
  /** The PKCE S256 challenge. */
  codeChallenge: string;
  /** The RFC 8707 resource the token is for. */
  resource: string;
  /** When it stops being accepted (ms). */
  expiresAt: number;
  /** When it was exchanged (ms), or `null`. */
  usedAt: number | null;
  /** The grant it produced, once exchanged. */
  grantId: string | null;
}

/** A user's consent to a client: the key minted last is its access token in force. */
export interface Grant {
  /** UUID. */
  id: string;
  /** The client. */
  clientId: string;
  /** The client's name when consented (the keys are named after it). */
  clientName: string;
  /** The user. */
  userId: string;
  /** The scopes granted. */
  scopes: string[];
  /** The RFC 8707 resource. */
  resource: string;
  /** The access token (agent key) in force. */
  keyId: string | null;
  /** ISO 8601, when the user consented. */
  createdAt: string;
  /** ISO 8601, or `null` while the grant holds. */
  revokedAt: string | null;
}

/** A refresh token, by hash. */
export interface RefreshToken {
  /** SHA-256, hex. */
  hash: string;
  /** Its grant. */
  grantId: string;
  /** When it stops being accepted (ms). */
  expiresAt: number;
  /** When it was exchanged (ms), or `null`: a second use is a reuse. */
  usedAt: number | null;
}

/** The OAuth server's storage. */
export interface OAuthStorage {
  /** Stores a client registered through RFC 7591. */
  insertClient(client: RegisteredClient): Promise<void>;
  /** A registered client, or `null`. */
  findClient(clientId: string): Promise<RegisteredClient | null>;
  /** Stores a code (and drops codes that expired a day before `now`). */
  insertCode(code: AuthorizationCode, now: number): Promise<void>;
  /** The code with this hash, used or not. */
  findCode(hash: string): Promise<AuthorizationCode | null>;
  /**
   * Marks a code used, once, and stores the grant it produces (with no key yet) linked to it, in one write: `false`
   * when it was used already (nothing stored). A concurrent second use then finds the grant and ends it; the grant's
   * first key and refresh token are stored by {@linkcode OAuthStorage.rotate} from `null`.
   */
  useCode(hash: string, now: number, grant: Grant): Promise<boolean>;
  /** A grant, or `null`. */
  findGrant(id: string): Promise<Grant | null>;
  /** The grant whose access token in force is this key, or `null`. */
  findGrantByKey(keyId: string): Promise<Grant | null>;
  /**
   * Ends a grant (once: the first time is kept); its refresh tokens stop working, and no rotation can replace its
   * key from then on. The id of its key in force at that moment (`null`: none, or no such grant).
   */
  revokeGrant(id: string, at: string): Promise<string | null>;
  /** The ids of the grant's keys still active in the app's own key table (none in cloud mode, where the cloud keeps them). */
  activeKeysOfGrant(id: string): Promise<string[]>;
  /** The refresh token with this hash, used or not. */
  findRefreshToken(hash: string): Promise<RefreshToken | null>;
  /** Marks a refresh token used, once: `false` when it already was. */
  useRefreshToken(hash: string, now: number): Promise<boolean>;
  /**
   * Records the grant's new access token and refresh token, in one write, only while the grant holds and its key in
   * force is still `oldKeyId`: `false` when it lost (the grant ended, or another rotation came first).
   */
  rotate(grantId: string, oldKeyId: string | null, keyId: string, refresh: RefreshToken): Promise<boolean>;
  /** The key that signs consent forms: `candidate` is stored when none is, and the stored one returned. */
  consentKey(candidate: string): Promise<string>;
  /** Whether the user holds a grant of this client that has not ended (they consented to it before). */
  hasLiveGrant(userId: string, clientId: string): Promise<boolean>;
  /**
   * Deletes registered clients made before `before` for which no authorization was ever completed (no code was
   * issued), in short chunks.
   */
  purgeUnusedClients(before: string): Promise<number>;
}

/**
 * The OAuth storage on the app's database.
 *
 * @param db The app's database, migrated with the OAuth tables.
 * @returns The storage.
 */
export function oauthStorage(db: Executor): OAuthStorage {
  /** Marks a one-time secret used: true for the one caller that spends it. */
  const spend = async (
    table: "app_oauth_codes" | "app_oauth_refresh_tokens",
    hash: string,
    now: number,
  ): Promise<boolean> => {
    const rs = await db.execute({
      sql: `UPDATE ${table} SET used_at = ? WHERE hash = ? AND used_at IS NULL`,
      args: [now, hash],
    });
    return rs.rowsAffected === 1;
  };
  const one = async <T>(sql: string, args: (string | number)[], map: (row: SqlRow) => T): Promise<T | null> => {
    const rs = await db.execute({ sql, args });
    return rs.rows.length ? map(rs.rows[0]) : null;
  };
  return {
    async insertClient(c) {
      await db.execute({
        sql: "INSERT INTO app_oauth_clients (client_id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)",
        args: [c.clientId, c.name, JSON.stringify(c.redirectUris), c.createdAt],
      });
    },
    findClient(clientId) {
      return one("SELECT * FROM app_oauth_clients WHERE client_id = ?", [clientId], (r) => ({
        clientId: String(r.client_id),
        name: String(r.name),
        redirectUris: JSON.parse(String(r.redirect_uris)),
        createdAt: String(r.created_at),
      }));
    },
    async insertCode(c, now) {
      await db.batch([
        { sql: "DELETE FROM app_oauth_codes WHERE expires_at < ?", args: [now - DAY_MS] },
        {
          sql: `INSERT INTO app_oauth_codes (hash, client_id, user_id, redirect_uri, scopes, code_challenge, resource,
                expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          args: [
            c.hash,
            c.clientId,
            c.userId,
            c.redirectUri,
            JSON.stringify(c.scopes),
            c.codeChallenge,
            c.resource,
            c.expiresAt,
          ],
        },
        // A registered client that got a code is in use: it is never purged as unused (a no-op for other clients).
        {
          sql: "UPDATE app_oauth_clients SET used_at = ? WHERE client_id = ? AND used_at IS NULL",
          args: [new Date(now).toISOString(), c.clientId],
        },
      ], "write");
    },
    findCode(hash) {
      return one("SELECT * FROM app_oauth_codes WHERE hash = ?", [hash], toCode);
    },
    async useCode(hash, now, g) {
      const [used] = await db.batch([
        {
          sql: "UPDATE app_oauth_codes SET used_at = ?, grant_id = ? WHERE hash = ? AND used_at IS NULL",
          args: [now, g.id, hash],
        },
        {
          // Only for the use that won.
          sql: `INSERT INTO app_oauth_grants (id, client_id, client_name, user_id, scopes, resource, key_id, created_at)
                SELECT ?, ?, ?, ?, ?, ?, NULL, ? WHERE EXISTS (SELECT 1 FROM app_oauth_codes WHERE hash = ? AND grant_id = ?)`,
          args: [
            g.id,
            g.clientId,
            g.clientName,
            g.userId,
            JSON.stringify(g.scopes),
            g.resource,
            g.createdAt,
            hash,
            g.id,
          ],
        },
      ], "write");
      return used.rowsAffected === 1;
    },
    findGrant(id) {
      return one("SELECT * FROM app_oauth_grants WHERE id = ?", [id], toGrant);
    },
    findGrantByKey(keyId) {
      return one("SELECT * FROM app_oauth_grants WHERE key_id = ?", [keyId], toGrant);
    },
    async revokeGrant(id, at) {
      const rs = await db.execute({
        sql: "UPDATE app_oauth_grants SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING key_id",
        args: [at, id],
      });
      return rs.rows.length && rs.rows[0].key_id !== null ? String(rs.rows[0].key_id) : null;
    },
    async activeKeysOfGrant(id) {
      const rs = await db.execute({
        sql: "SELECT id FROM app_keys WHERE grant_id = ? AND revoked_at IS NULL",
        args: [id],
      });
      return rs.rows.map((row) => String(row.id));
    },
    findRefreshToken(hash) {
      return one("SELECT * FROM app_oauth_refresh_tokens WHERE hash = ?", [hash], (r) => ({
        hash: String(r.hash),
        grantId: String(r.grant_id),
        expiresAt: Number(r.expires_at),
        usedAt: r.used_at === null ? null : Number(r.used_at),
      }));
    },
    useRefreshToken: (hash, now) => spend("app_oauth_refresh_tokens", hash, now),
    async rotate(grantId, oldKeyId, keyId, refresh) {
      const [rotated] = await db.batch([
        {
          sql: `UPDATE app_oauth_grants SET key_id = ? WHERE id = ? AND key_id IS ? AND revoked_at IS NULL`,
          args: [keyId, grantId, oldKeyId],
        },
        // Used tokens older than the new one's life can no longer be presented as a reuse worth detecting.
        {
          sql: "DELETE FROM app_oauth_refresh_tokens WHERE grant_id = ? AND used_at IS NOT NULL AND expires_at < ?",
          args: [grantId, refresh.expiresAt - DAY_MS],
        },
        // Only for the rotation that won.
        {
          sql: `INSERT INTO app_oauth_refresh_tokens (hash, grant_id, expires_at)
                SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM app_oauth_grants WHERE id = ? AND key_id = ?)`,
          args: [refresh.hash, refresh.grantId, refresh.expiresAt, grantId, keyId],
        },
      ], "write");
      return rotated.rowsAffected === 1;
    },
    async consentKey(candidate) {
      const [, rs] = await db.batch([
        {
          sql: "INSERT INTO app_oauth_settings (name, value) VALUES ('consent_key', ?) ON CONFLICT DO NOTHING",
          args: [candidate],
        },
        "SELECT value FROM app_oauth_settings WHERE name = 'consent_key'",
      ], "write");
      return String(rs.rows[0].value);
    },
    async hasLiveGrant(userId, clientId) {
      const found = await one(
        "SELECT 1 AS found FROM app_oauth_grants WHERE client_id = ? AND user_id = ? AND revoked_at IS NULL LIMIT 1",
        [clientId, userId],
        () => true,
      );
      return found ?? false;
    },
    purgeUnusedClients(before) {
      // Every match goes, in any order: no ORDER BY, so the search runs on app_oauth_clients_unused.
      return deleteInChunks(db, {
        table: "app_oauth_clients",
        where: "used_at IS NULL AND created_at < ?",
        args: [before],
      });
    },
  };
}

const DAY_MS = 86_400_000;

function toCode(r: SqlRow): AuthorizationCode {
  return {
    hash: String(r.hash),
    clientId: String(r.client_id),
    userId: String(r.user_id),
    redirectUri: String(r.redirect_uri),
    scopes: JSON.parse(String(r.scopes)),
    codeChallenge: String(r.code_challenge),
    resource: String(r.resource),
    expiresAt: Number(r.expires_at),
    usedAt: r.used_at === null ? null : Number(r.used_at),
    grantId: r.grant_id === null ? null : String(r.grant_id),
  };
}

function toGrant(r: SqlRow): Grant {
  return {
    id: String(r.id),
    clientId: String(r.client_id),
    clientName: String(r.client_name),
    userId: String(r.user_id),
    scopes: JSON.parse(String(r.scopes)),
    resource: String(r.resource),
    keyId: r.key_id === null ? null : String(r.key_id),
    createdAt: String(r.created_at),
    revokedAt: r.revoked_at === null ? null : String(r.revoked_at),
  };
}
