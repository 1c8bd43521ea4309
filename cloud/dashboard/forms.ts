/**
 * Reading a posted form: `application/x-www-form-urlencoded` only, with a
 * small size limit counted while reading (the `/v1` body reader), so an
 * oversized post, signed in or not, is never buffered; anything else is
 * refused before a handler sees it.
 *
 * @module
 */
import { readBody } from "../../core/http/mod.ts";

/** The largest form accepted, in bytes: 64 KiB, far above the dashboard's forms of a few short fields. */
export const FORM_LIMIT = 64 * 1024;

/**
 * The posted form, or `null` when the body is not a form.
 *
 * @param req The request.
 * @returns The fields.
 * @throws {SvcError} `PAYLOAD_TOO_LARGE` over {@linkcode FORM_LIMIT}, before reading further.
 */
export async function readForm(req: Request): Promise<URLSearchParams | null> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  return new URLSearchParams(new TextDecoder().decode(await readBody(req, FORM_LIMIT)));
}

/**
 * A trimmed text field.
 *
 * @param form The form.
 * @param name The field.
 * @returns Its value, or an empty string.
 */
export function field(form: URLSearchParams, name: string): string {
  return (form.get(name) ?? "").trim();
}
