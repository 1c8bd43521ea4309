/**
 * The export: a project's records as NDJSON (one JSON record a line), oldest first, read a page at a time as the
 * client reads. A stream with no queue of its own: the next page is read only when the client took the last, so a
 * slow reader holds one page in memory, never the table.
 *
 * @module
 */
import type { ErrorLogger } from "../../core/logging/mod.ts";
import type { ActivityCursor, ActivityFilters } from "./activity_query.ts";
import type { ActivityRepository } from "./libsql_activity.ts";

/** Records read per page of an export. */
export const EXPORT_PAGE = 1000;

/**
 * Streams a project's records in a time range as NDJSON.
 *
 * @param storage The activity's storage.
 * @param projectId The project.
 * @param range Since (inclusive) and until (exclusive).
 * @param log Where a read that fails in the middle of the export goes (the client then sees the body end early).
 * @param pageSize Records read per page.
 * @returns The body.
 */
export function exportStream(
  storage: Pick<ActivityRepository, "exportActivity">,
  projectId: string,
  range: Pick<ActivityFilters, "since" | "until">,
  log?: ErrorLogger,
  pageSize: number = EXPORT_PAGE,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: ActivityCursor | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const page = await storage.exportActivity(projectId, range, after, pageSize);
        const last = page.at(-1);
        if (last !== undefined) {
          after = { at: last.at, id: last.id };
          let lines = "";
          for (const record of page) lines += `${JSON.stringify(record)}\n`;
          controller.enqueue(encoder.encode(lines));
        }
        if (page.length < pageSize) controller.close();
      } catch (error) {
        log?.("Exporting activity failed", error);
        controller.error(error);
      }
    },
  }, { highWaterMark: 0 });
}
