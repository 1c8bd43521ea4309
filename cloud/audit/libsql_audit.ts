/**
 * The append-only audit log on libSQL.
 *
 * @module
 */
import type { Executor, SqlRow, Statement } from "../../core/db/mod.ts";
import type { AuditEntry, AuditEntryInput, AuditStorage } from "./audit_storage.ts";
import { integer, listFilter, parsed, text, textOrNull } from "../../core/db/mod.ts";

/**
 * Audit log queries on an executor.
 *
 * @param db The database.
 * @returns The audit part of the storage.
 */
export function auditStorage(db: Executor): AuditStorage {
  return {
    async appendAudit(entry) {
      const rs = await db.execute(auditInsert(entry));
      return integer(rs.rows[0], "id");
    },
    async listAudit(query) {
      const { where, args } = listFilter(
        { project_id: query.projectId, action: query.action, target: query.keyId },
        query.since,
      );
      // One read transaction, so the page and the total agree.
      const [page, count] = await db.batch([
        {
          sql: `SELECT * FROM cloud_audit WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
          args: [...args, query.limit, query.offset],
        },
        { sql: `SELECT COUNT(*) AS total FROM cloud_audit WHERE ${where}`, args },
      ], "read");
      return { entries: page.rows.map(toEntry), total: integer(count.rows[0], "total") };
    },
  };
}

/**
 * The one statement that appends an audit entry (returning its `id`), for
 * {@linkcode AuditStorage.appendAudit} and for writes that must be audited in
 * their own transaction or batch (a project's deletion, an automatic revoke).
 *
 * @param e The entry.
 * @param condition An SQL condition (with its arguments) the entry is written under; without it, always.
 * @returns The statement.
 */
export function auditInsert(e: AuditEntryInput, condition?: Statement): Statement {
  return {
    sql: `INSERT INTO cloud_audit (project_id, actor, action, target, detail, source_address, created_at, received_at)
          SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE ${condition?.sql ?? "1"} RETURNING id`,
    args: [
      e.projectId,
      e.actor,
      e.action,
      e.target,
      JSON.stringify(e.detail),
      e.sourceAddress,
      e.createdAt,
      e.receivedAt ?? e.createdAt,
      ...condition?.args ?? [],
    ],
  };
}

function toEntry(row: SqlRow): AuditEntry {
  return {
    id: integer(row, "id"),
    projectId: textOrNull(row, "project_id"),
    actor: text(row, "actor"),
    action: text(row, "action"),
    target: textOrNull(row, "target"),
    detail: parsed<Record<string, unknown>>(row, "detail"),
    sourceAddress: textOrNull(row, "source_address"),
    createdAt: text(row, "created_at"),
    receivedAt: textOrNull(row, "received_at") ?? text(row, "created_at"),
  };
}
