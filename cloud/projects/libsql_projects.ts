/**
 * Projects and their intent manifests on libSQL.
 *
 * @module
 */
import type { Executor, ResultSet, SqlRow } from "../../core/db/mod.ts";
import type { ProjectRecord, ProjectRepository } from "./project_repository.ts";
import type { Manifest } from "../../core/contract/mod.ts";
import { parsed, text, textOrNull } from "../../core/db/mod.ts";
import { createChangeCache, type Statement } from "../../core/db/mod.ts";
import { type AuditEntryInput, auditInsert } from "../audit/mod.ts";

/** Projects whose secret hash is kept in process. */
const SECRET_CACHE_SIZE = 10_000;

/** The version of every project's secret (cloud migration 20's triggers move it). */
const PROJECT_CHANGES = "SELECT seq FROM cloud_project_changes WHERE id = 1";

/** The project and manifest part of {@linkcode ProjectRepository}. */
export type ProjectStorage = Pick<
  ProjectRepository,
  | "createProject"
  | "findProject"
  | "projectSecretHash"
  | "listProjects"
  | "rotateProjectSecret"
  | "putManifest"
  | "getManifest"
>;

/**
 * Project and manifest queries on a database. A project's secret hash (read
 * by every SDK request) is cached until a project changes: when another
 * connection has committed (`PRAGMA data_version` on a local file), one read
 * of `cloud_project_changes` (bumped by triggers when a project is created,
 * deleted or its secret changes) tells whether the cached hashes still hold,
 * so other nodes' events do not make every node read its secrets again; a
 * rotation in this process updates it directly. Where the database cannot tell that it changed (a remote database,
 * an injected Client), the hash is read on every request: a rotation made
 * through another connection or node (the `rotate-secret` command, another
 * storage over the same Client) must refuse the old secret and accept the new
 * one at once, not up to a second later.
 *
 * @param db The database.
 * @returns The project part of the storage.
 */
export function projectStorage(db: Executor): ProjectStorage {
  const secrets = createChangeCache<string, string | null>(db, {
    size: SECRET_CACHE_SIZE,
    remote: "uncached",
    // A missing row (never, short of a hand-made edit) reads as a change every time.
    changes: async () => (await db.execute(PROJECT_CHANGES)).rows[0]?.seq ?? Symbol("no row"),
  });
  return {
    async createProject(project, audit) {
      await db.batch([
        {
          sql:
            "INSERT INTO cloud_projects (id, name, secret_hash, created_at, secret_rotated_at) VALUES (?, ?, ?, ?, ?)",
          args: [project.id, project.name, project.secretHash, project.createdAt, project.secretRotatedAt],
        },
        ...audit ? [auditInsert(audit)] : [],
      ], "write");
      secrets.delete(project.id);
    },
    projectSecretHash(id) {
      return secrets.read(id, async () => {
        const rs = await db.execute({ sql: "SELECT secret_hash FROM cloud_projects WHERE id = ?", args: [id] });
        return rs.rows.length ? text(rs.rows[0], "secret_hash") : null;
      });
    },
    async findProject(id) {
      const rs = await db.execute({ sql: "SELECT * FROM cloud_projects WHERE id = ?", args: [id] });
      return rs.rows.length ? toProject(rs.rows[0]) : null;
    },
    async listProjects() {
      const rs = await db.execute("SELECT * FROM cloud_projects ORDER BY created_at, id");
      return rs.rows.map(toProject);
    },
    async rotateProjectSecret(id, secretHash, at, audit) {
      const rs = await audited(db, audit, {
        sql: "UPDATE cloud_projects SET secret_hash = ?, secret_rotated_at = ? WHERE id = ?",
        args: [secretHash, at, id],
      });
      if (rs.rowsAffected === 1) secrets.set(id, secretHash);
      return rs.rowsAffected === 1;
    },
    async putManifest(projectId, manifest) {
      await db.execute({
        sql: `INSERT INTO cloud_manifests (project_id, intents, scopes, updated_at) VALUES (?, ?, ?, ?)
              ON CONFLICT (project_id) DO UPDATE
              SET intents = excluded.intents, scopes = excluded.scopes, updated_at = excluded.updated_at`,
        args: [projectId, JSON.stringify(manifest.intents), JSON.stringify(manifest.scopes), manifest.updatedAt],
      });
    },
    async getManifest(projectId) {
      const rs = await db.execute({ sql: "SELECT * FROM cloud_manifests WHERE project_id = ?", args: [projectId] });
      if (rs.rows.length === 0) return { intents: [], scopes: [], updatedAt: null };
      const row = rs.rows[0];
      return {
        intents: parsed<Manifest["intents"]>(row, "intents"),
        scopes: parsed<string[]>(row, "scopes"),
        updatedAt: text(row, "updated_at"),
      };
    },
  };
}

function toProject(row: SqlRow): ProjectRecord {
  return {
    id: text(row, "id"),
    name: text(row, "name"),
    secretHash: text(row, "secret_hash"),
    createdAt: text(row, "created_at"),
    secretRotatedAt: textOrNull(row, "secret_rotated_at"),
  };
}

/**
 * Runs a write on a project with its audit entry in one batch: the entry first, written only when the
 * project exists, so a write that finds no project leaves no entry.
 *
 * @param db The database.
 * @param audit The entry, or none.
 * @param write The statement, whose `rowsAffected` says whether it found the project.
 * @param projectId The project (default: the statement's last argument).
 * @returns The write's result.
 */
export async function audited(
  db: Executor,
  audit: AuditEntryInput | undefined,
  write: Statement,
  projectId: string = String(write.args?.at(-1)),
): Promise<ResultSet> {
  if (!audit) return await db.execute(write);
  const exists = { sql: "EXISTS (SELECT 1 FROM cloud_projects WHERE id = ?)", args: [projectId] };
  const results = await db.batch([auditInsert(audit, exists), write], "write");
  return results[1];
}
