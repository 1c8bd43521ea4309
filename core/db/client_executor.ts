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
import { isolateEnded } from "./isolate_end.ts";

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
      ensureOpen();
      return resultOf(await client.execute(inStatement(statement)));
    },
    async batch(statements, mode: TransactionMode = "deferred") {
      ensureOpen();
      return (await client.batch(statements.map(inStatement), mode)).map(resultOf);
    },
    async transaction<T>(work: (tx: Transaction) => Promise<T>, mode: TransactionMode = "write"): Promise<T> {
      ensureOpen();
      const tx = await client.transaction(mode);
      try {
        const result = await work({
          execute: async (s) => {
            ensureOpen();
            return resultOf(await tx.execute(inStatement(s)));
          },
        });
        ensureOpen();
        await tx.commit();
        return result;
      } catch (error) {
        if (!isolateEnded() && !tx.closed) await tx.rollback();
        throw error;
      } finally {
        if (!isolateEnded()) tx.close();
      }
    },
    dataVersion() {
      return null;
    },
    close() {
      if (owned && !isolateEnded()) client.close();
    },
  };
}

/**
 * Refuses a statement once the isolate has unloaded: an injected local Client runs on libSQL's native module, whose
 * objects may then be finalized (see `isolate_end.ts`).
 */
function ensureOpen(): void {
  if (isolateEnded()) throw new Error("The database is closed");
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
