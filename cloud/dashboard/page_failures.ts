/**
 * The dashboard's answers to what fails: the form too large (413), too many password hashes waiting (429), the
 * database full or locked (507, 503), and anything else (500, its cause logged), each a page with `Retry-After`
 * where one applies.
 *
 * @module
 */
import { isSvcError, type SvcError } from "../../core/errors/mod.ts";
import { storageError } from "../../core/db/mod.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { messagePage } from "./fragments.ts";
import { FORM_LIMIT } from "./forms.ts";

/**
 * The page for a failure of a row (its authentication or its page).
 *
 * @param error What was thrown.
 * @param log Where the cause of a failure goes.
 * @param secure Whether browsers reach the dashboard over https.
 * @returns The page.
 */
export function failurePage(error: unknown, log: ErrorLogger, secure: boolean): Promise<Response> {
  if (isSvcError(error) && error.status === 413) {
    return withHeaders(
      messagePage(413, "Form too large", `A form may hold at most ${FORM_LIMIT / 1024} KiB.`, secure),
      error,
    );
  }
  if (isSvcError(error) && error.status === 429) {
    // Too many password hashes wait (see `hash_gate.ts`).
    return withHeaders(messagePage(429, "Busy", "Too many sign-ins at once. Try again in a moment.", secure), error);
  }
  log("A dashboard page failed", error); // a storage failure: once a minute, with the fix
  const stored = storageError(error);
  if (stored) return storagePage(stored, secure);
  return messagePage(500, "Something went wrong", "The page failed; the cause is in the log.", secure);
}

/** The answer when the database cannot take a write: 507 (disk full) or 503 (locked), with `Retry-After`. */
function storagePage(error: SvcError, secure: boolean): Promise<Response> {
  return withHeaders(
    messagePage(
      error.status,
      error.code === "STORAGE_FULL" ? "Storage full" : "Storage busy",
      `${error.message}. Nothing was changed; try again in a moment (the cause is in the log).`,
      secure,
    ),
    error,
  );
}

async function withHeaders(page: Promise<Response>, error: SvcError): Promise<Response> {
  const res = await page;
  for (const [name, value] of Object.entries(error.headers ?? {})) res.headers.set(name, value);
  return res;
}
