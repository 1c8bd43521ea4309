/**
 * The `@libsql/client` engine: remote databases (`libsql://`, `http(s)://`,
 * `ws(s)://`) and clients injected by the application.
 *
 * @module
 */
import type { Client, InStatement, ResultSet as ClientResultSet } from "@libsql/client";
import {
  type Executor,
  type ResultSet,
  type SqlRow,
  type Statement,
  statementOf,
  type Transaction,
  type TransactionMode,
} from "./executor.ts";

/**
 * Runs statements through a `@libsql/client` Client.
 *
 * @param client The client.
 * @param owned Whether {@linkcode Executor.close} closes it (`false` for an injected client).
 * @returns The executor.
 */
export function clientExecutor(client: Client, owned: boolean): Executor {
  return {
    engine: "client",
    async execute(statement) {
      return resultOf(await client.execute(inStatement(statement)));
    },
    async batch(statements, mode: TransactionMode = "deferred") {
      return (await client.batch(statements.map(inStatement), mode)).map(resultOf);
    },
    async transaction<T>(work: (tx: Transaction) => Promise<T>, mode: TransactionMode = "write"): Promise<T> {
      const tx = await client.transaction(mode);
      try {
        const result = await work({ execute: async (s) => resultOf(await tx.execute(inStatement(s))) });
        await tx.commit();
        return result;
      } catch (error) {
        if (!tx.closed) await tx.rollback();
        throw error;
      } finally {
        tx.close();
      }
    },
    dataVersion() {
      return null;
    },
    close() {
      if (owned) client.close();
    },
  };
}

function inStatement(statement: string | Statement): InStatement {
  const { sql, args } = statementOf(statement);
  return { sql, args: args as InStatement extends { args?: infer A } ? A : never };
}

function resultOf(rs: ClientResultSet): ResultSet {
  // Like the native engine: a statement with a result counts the rows it returned (the local
  // client reports 0 for INSERT … RETURNING).
  const rows = rs.rows as unknown as SqlRow[];
  if (rs.columns.length > 0) return { rows, rowsAffected: rows.length };
  const { rowsAffected, lastInsertRowid } = rs;
  return lastInsertRowid === undefined
    ? { rows, rowsAffected }
    : { rows, rowsAffected, lastInsertRowid: Number(lastInsertRowid) };
}
