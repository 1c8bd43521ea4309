/**
 * The zod schema of the contract's error envelope, the one description of it:
 * OpenAPI documents it from here and the conformance kit checks answers with it.
 *
 * @module
 */
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../errors/mod.ts";

const codes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** `{ ok: false, error: { code, message, details? } }`. */
export const errorEnvelopeSchema = z.object({
  ok: z.literal(false),
  error: z.object({
    code: z.enum(codes).describe("Stable machine code"),
    message: z.string().describe("Safe, human-readable text"),
    details: z.unknown().optional().describe("Such as `issues: [{ path, message }]` or `missingScopes`"),
  }),
}).describe("The error envelope of every route");
