/**
 * Reading a posted form: `application/x-www-form-urlencoded` only, with a
 * small size limit; anything else is refused before a handler sees it.
 *
 * @module
 */

/** The largest form accepted, in bytes. */
const FORM_LIMIT = 64 * 1024;

/**
 * The posted form, or `null` when the body is not a form or is too large.
 *
 * @param req The request.
 * @returns The fields.
 */
export async function readForm(req: Request): Promise<URLSearchParams | null> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > FORM_LIMIT) return null;
  const body = await req.text();
  if (body.length > FORM_LIMIT) return null;
  return new URLSearchParams(body);
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

/** A plausible email: something, `@`, something with a dot; at most 254 characters. */
export const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

/**
 * Whether a string is a plausible email address.
 *
 * @param email The address.
 * @returns `true` when it looks like one.
 */
export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}
