/**
 * The filters and page of a violations query, shared by `GET /v1/sdk/violations`
 * and the dashboard's violations page.
 *
 * @module
 */
import { z } from "zod";
import { storedText } from "../../core/contract/mod.ts";
import { severitySchema } from "../../core/contract/mod.ts";
import { pageSize, queryInteger, timestampInput } from "../../core/contract/mod.ts";

/** The query of `GET /v1/sdk/violations`; `since` is inclusive. */
export const violationsQuery = z.object({
  keyId: storedText(1, 200).optional().describe("Only this key's"),
  kind: storedText(1, 100).optional().describe("Only this kind"),
  severity: severitySchema.optional().describe("Only this severity"),
  since: timestampInput.optional().describe("Only at or after this time"),
  limit: pageSize(0),
  offset: queryInteger().default(0).describe("Matches to skip"),
});
