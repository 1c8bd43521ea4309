/**
 * Operators, sessions and setup tokens on libSQL.
 *
 * @module
 */
import type { Executor, SqlRow, SqlValue, Statement } from "../../core/db/mod.ts";
import type { OperatorRecord, OperatorRole, OperatorStorage, SessionRecord } from "./operator_storage.ts";
import { integer, parsed, text, textOrNull } from "../../core/db/mod.ts";
import { auditInsert } from "../audit/mod.ts";

const COLUMNS = "id, email, role, password_hash, totp_secret, recovery_code_hashes, created_at, updated_at";
const SLOTS = "?, ?, ?, ?, ?, ?, ?, ?";

/**
 * Operator, session and setup token queries on an executor.
 *
 * @param db The database.
 * @returns The operator part of the storage.
 */
export function operatorStorage(db: Executor): OperatorStorage {
  const one = async (sql: string, args: SqlValue[]): Promise<OperatorRecord | null> => {
    const rs = await db.execute({ sql: `SELECT ${COLUMNS} FROM cloud_operators WHERE ${sql}`, args });
    return rs.rows.length ? toOperator(rs.rows[0]) : null;
  };
  return {
    async createOperator(operator, audit) {
      // The entry after the insert, written only when this operator (a fresh id) was stored.
      const [rs] = await db.batch([
        {
          sql: `INSERT INTO cloud_operators (${COLUMNS}) VALUES (${SLOTS}) ON CONFLICT DO NOTHING`,
          args: operatorValues(operator),
        },
        ...audit ? [auditInsert(audit, operatorExists(operator.id))] : [],
      ], "write");
      return rs.rowsAffected === 1;
    },
    findOperator: (id) => one("id = ?", [id]),
    findOperatorByEmail: (email) => one("email = ?", [email.toLowerCase()]),
    async listOperators() {
      const rs = await db.execute(`SELECT ${COLUMNS} FROM cloud_operators ORDER BY created_at, id`);
      return rs.rows.map(toOperator);
    },
    async countOperators() {
      const rs = await db.execute("SELECT COUNT(*) AS n FROM cloud_operators");
      return integer(rs.rows[0], "n");
    },
    async updateOperator(id, changes, at, audit) {
      const sets = ["updated_at = ?"];
      const args: SqlValue[] = [at];
      const columns = {
        role: changes.role,
        password_hash: changes.passwordHash,
        totp_secret: changes.totpSecret,
        recovery_code_hashes: changes.recoveryCodeHashes && JSON.stringify(changes.recoveryCodeHashes),
      };
      for (const [column, value] of Object.entries(columns)) {
        if (value === undefined) continue;
        sets.push(`${column} = ?`);
        args.push(value);
      }
      const statements: Statement[] = audit ? [auditInsert(audit, operatorExists(id))] : [];
      statements.push({
        sql: `UPDATE cloud_operators SET ${sets.join(", ")} WHERE id = ?`,
        args: [...args, id],
      });
      // A new password or role takes effect at once: the operator signs in again.
      if (changes.passwordHash !== undefined || changes.role !== undefined) {
        statements.push({ sql: "DELETE FROM cloud_sessions WHERE operator_id = ?", args: [id] });
      }
      const [updated] = (await db.batch(statements, "write")).slice(audit ? 1 : 0);
      return updated.rowsAffected === 1;
    },
    async spendTotpStep(id, step) {
      // One statement: of two sign-ins with the same code, only the first one's update matches.
      const rs = await db.execute({
        sql: "UPDATE cloud_operators SET totp_step = ? WHERE id = ? AND (totp_step IS NULL OR totp_step < ?)",
        args: [step, id, step],
      });
      return rs.rowsAffected === 1;
    },
    async spendRecoveryCode(id, codeHash, at) {
      // One statement: the code is removed only if present, so two concurrent uses spend it once.
      const rs = await db.execute({
        sql: `UPDATE cloud_operators SET updated_at = ?,
                recovery_code_hashes = (SELECT json_group_array(value) FROM json_each(recovery_code_hashes) WHERE value <> ?)
              WHERE id = ? AND EXISTS (SELECT 1 FROM json_each(recovery_code_hashes) WHERE value = ?)`,
        args: [at, codeHash, id, codeHash],
      });
      return rs.rowsAffected === 1;
    },
    async removeOperator(id, audit) {
      const [, removed] = (await db.batch([
        ...audit ? [auditInsert(audit, operatorExists(id))] : [],
        { sql: "DELETE FROM cloud_sessions WHERE operator_id = ?", args: [id] },
        { sql: "DELETE FROM cloud_operators WHERE id = ?", args: [id] },
      ], "write")).slice(audit ? 1 : 0);
      return removed.rowsAffected === 1;
    },

    async createSession(s, audit) {
      await db.batch([
        {
          sql:
            `INSERT INTO cloud_sessions (token_hash, operator_id, created_at, last_seen_at, expires_at, source_address)
              VALUES (?, ?, ?, ?, ?, ?)`,
          args: [s.tokenHash, s.operatorId, s.createdAt, s.lastSeenAt, s.expiresAt, s.sourceAddress],
        },
        ...audit ? [auditInsert(audit)] : [],
      ], "write");
    },
    async findSession(tokenHash) {
      const rs = await db.execute({
        sql: `SELECT s.token_hash, s.operator_id, s.created_at AS s_created_at, s.last_seen_at, s.expires_at,
                s.source_address, ${COLUMNS.split(", ").map((c) => `o.${c}`).join(", ")}
              FROM cloud_sessions s JOIN cloud_operators o ON o.id = s.operator_id WHERE s.token_hash = ?`,
        args: [tokenHash],
      });
      if (rs.rows.length === 0) return null;
      const row = rs.rows[0];
      return { session: toSession(row), operator: toOperator(row) };
    },
    async touchSession(tokenHash, at) {
      await db.execute({
        sql: "UPDATE cloud_sessions SET last_seen_at = ? WHERE token_hash = ?",
        args: [at, tokenHash],
      });
    },
    async deleteSession(tokenHash, audit) {
      const [rs] = await db.batch([
        { sql: "DELETE FROM cloud_sessions WHERE token_hash = ?", args: [tokenHash] },
        ...audit ? [auditInsert(audit)] : [],
      ], "write");
      return rs.rowsAffected === 1;
    },
    async purgeSessions(at, idleBefore) {
      const rs = await db.execute({
        sql: "DELETE FROM cloud_sessions WHERE expires_at <= ? OR last_seen_at < ?",
        args: [at, idleBefore],
      });
      return rs.rowsAffected;
    },

    async createSetupToken(t) {
      await db.execute({
        sql: "INSERT INTO cloud_setup_tokens (token_hash, created_at, expires_at) VALUES (?, ?, ?)",
        args: [t.tokenHash, t.createdAt, t.expiresAt],
      });
    },
    async setupTokenValid(tokenHash, at) {
      const rs = await db.execute({
        sql: `SELECT 1 FROM cloud_setup_tokens WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
              AND NOT EXISTS (SELECT 1 FROM cloud_operators)`,
        args: [tokenHash, at],
      });
      return rs.rows.length === 1;
    },
    async setupFirstOperator(tokenHash, operator, at, audit) {
      // One write transaction: spend the token only while no operator exists, then insert the
      // operator only if this very statement spent it.
      const [spent] = await db.batch([
        {
          sql: `UPDATE cloud_setup_tokens SET used_at = ?
                WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? AND NOT EXISTS (SELECT 1 FROM cloud_operators)`,
          args: [at, tokenHash, at],
        },
        {
          sql: `INSERT INTO cloud_operators (${COLUMNS}) SELECT ${SLOTS}
                WHERE EXISTS (SELECT 1 FROM cloud_setup_tokens WHERE token_hash = ? AND used_at = ?)
                AND NOT EXISTS (SELECT 1 FROM cloud_operators)`,
          args: [...operatorValues(operator), tokenHash, at],
        },
        // Written only when this batch spent the token and created the operator.
        ...audit ? [auditInsert(audit, operatorExists(operator.id))] : [],
      ], "write");
      return spent.rowsAffected === 1;
    },
  };
}

function operatorValues(o: OperatorRecord): SqlValue[] {
  return [
    o.id,
    o.email.toLowerCase(),
    o.role,
    o.passwordHash,
    o.totpSecret,
    JSON.stringify(o.recoveryCodeHashes),
    o.createdAt,
    o.updatedAt,
  ];
}

function toOperator(row: SqlRow): OperatorRecord {
  return {
    id: text(row, "id"),
    email: text(row, "email"),
    role: text(row, "role") as OperatorRole,
    passwordHash: text(row, "password_hash"),
    totpSecret: textOrNull(row, "totp_secret"),
    recoveryCodeHashes: parsed<string[]>(row, "recovery_code_hashes"),
    createdAt: text(row, "created_at"),
    updatedAt: text(row, "updated_at"),
  };
}

function toSession(row: SqlRow): SessionRecord {
  return {
    tokenHash: text(row, "token_hash"),
    operatorId: text(row, "operator_id"),
    createdAt: text(row, "s_created_at"),
    lastSeenAt: text(row, "last_seen_at"),
    expiresAt: text(row, "expires_at"),
    sourceAddress: textOrNull(row, "source_address"),
  };
}

/** The condition of an operator's audit entry: the operator exists. */
function operatorExists(id: string): Statement {
  return { sql: "EXISTS (SELECT 1 FROM cloud_operators WHERE id = ?)", args: [id] };
}
