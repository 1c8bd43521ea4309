/**
 * Reading the URL-encoded form bodies of the OAuth endpoints.
 *
 * @module
 */
import { readBody } from "../http/mod.ts";

/** The largest form read. */
export const FORM_LIMIT = 64 * 1024;

/**
 * The form of a POST.
 *
 * @param req The request.
 * @returns The fields, or `null` when the body is not a UTF-8 URL-encoded form within {@linkcode FORM_LIMIT}.
 */
export async function readForm(req: Request): Promise<URLSearchParams | null> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) return null;
  try {
    return new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(await readBody(req, FORM_LIMIT)));
  } catch {
    return null;
  }
}
