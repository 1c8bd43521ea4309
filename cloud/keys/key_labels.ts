/**
 * A key's name and user next to its id, for the audit log and the violations list: one batched read for a page's
 * rows, never one per row.
 *
 * @module
 */
import type { Executor, SqlValue } from "../../core/db/mod.ts";
import { text } from "../../core/db/mod.ts";

/** A key as a page names it: its name and its user. */
export interface KeyLabel {
  /** The key's name. */
  name: string;
  /** The user holding it. */
  userId: string;
}

/** A key of a project, by its id. */
export interface KeyRef {
  /** The project. */
  projectId: string;
  /** The key's id. */
  keyId: string;
}

/** Keys per read at most (two variables each, far below SQLite's limit). */
const MAX_REFS = 500;

/** Reading keys' labels. */
export interface KeyLabelReads {
  /**
   * The name and user of each of these keys that exists, in one read per {@linkcode MAX_REFS} keys; the map's key is
   * {@linkcode keyLabelId}.
   */
  keyLabels(refs: readonly KeyRef[]): Promise<Map<string, KeyLabel>>;
}

/**
 * The map key of a project's key in {@linkcode KeyLabelReads.keyLabels}'s answer.
 *
 * @param projectId The project.
 * @param keyId The key's id.
 * @returns The map key.
 * @example
 * ```ts
 * const labels = new Map([[keyLabelId("p1", "k1"), { name: "billing", userId: "u1" }]]);
 * labels.get(keyLabelId("p1", "k1"));
 * ```
 */
export function keyLabelId(projectId: string, keyId: string): string {
  return `${projectId}\u0000${keyId}`;
}

/**
 * The label reads on an executor.
 *
 * @param db The database.
 * @returns The reads.
 */
export function keyLabelReads(db: Executor): KeyLabelReads {
  return {
    async keyLabels(refs) {
      const unique = [...new Map(refs.map((r) => [keyLabelId(r.projectId, r.keyId), r])).values()];
      const labels = new Map<string, KeyLabel>();
      for (let at = 0; at < unique.length; at += MAX_REFS) {
        const chunk = unique.slice(at, at + MAX_REFS);
        const args: SqlValue[] = chunk.flatMap((r) => [r.projectId, r.keyId]);
        // Each pair found through the (project_id, id) unique index.
        const rs = await db.execute({
          sql: `WITH wanted (project_id, id) AS (VALUES ${chunk.map(() => "(?, ?)").join(", ")})
                SELECT k.project_id, k.id, k.name, k.user_id FROM wanted w
                JOIN cloud_keys k ON k.project_id = w.project_id AND k.id = w.id`,
          args,
        });
        for (const row of rs.rows) {
          labels.set(keyLabelId(text(row, "project_id"), text(row, "id")), {
            name: text(row, "name"),
            userId: text(row, "user_id"),
          });
        }
      }
      return labels;
    },
  };
}
