/**
 * The body of a route that takes one item where a sibling route takes a batch:
 * a batch sent to the single route is refused with a `400 VALIDATION_ERROR`
 * whose message names the batch route, rather than a list of missing fields.
 * The schema still describes (OpenAPI, JSON Schema) the single shape only.
 *
 * @module
 */
import { z } from "zod";
import { SvcError } from "../errors/mod.ts";

/** Where the batch goes, and how to name it. */
export interface BatchRoute {
  /** The single route, such as `POST /v1/events`. */
  route: string;
  /** What it takes, such as `one event`. */
  takes: string;
  /** The field holding a batch's items, such as `events`. */
  field: string;
  /** The batch route, such as `POST /v1/events/batch`. */
  batchRoute: string;
}

/**
 * Wraps the body schema of a single route so that a batch body is refused with the batch route's name.
 *
 * @example `POST /v1/events` refuses `{ events: [...] }`
 * ```ts
 * import { z } from "zod";
 * import { singleBody } from "./single_body.ts";
 *
 * const body = singleBody(z.object({ eventId: z.string() }), {
 *   route: "POST /v1/events",
 *   takes: "one event",
 *   field: "events",
 *   batchRoute: "POST /v1/events/batch",
 * });
 * try {
 *   body.parse({ events: [] });
 * } catch (error) {
 *   console.log((error as Error).message);
 *   // POST /v1/events takes one event; send { events: [...] } to POST /v1/events/batch
 * }
 * ```
 *
 * @param schema The single item's body schema.
 * @param batch The routes and the batch's field.
 * @returns The same schema, refusing a batch body with an `SvcError` (`VALIDATION_ERROR`, `details.issues`).
 */
export function singleBody<T>(schema: z.ZodType<T>, batch: BatchRoute): z.ZodType<T> {
  const { route, takes, field, batchRoute } = batch;
  const message = `${route} takes ${takes}; send { ${field}: [...] } to ${batchRoute}`;
  return z.preprocess((value) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, field)) {
      throw new SvcError("VALIDATION_ERROR", message, {
        details: { issues: [{ path: field, message: `A batch goes to ${batchRoute}` }] },
      });
    }
    return value;
  }, schema);
}
