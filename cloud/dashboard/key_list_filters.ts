/**
 * The keys list's filters (search, user, status, page), read from a URL or a posted form and carried through a
 * revoke's confirmation and redirect, so the operator lands back on the list they acted from.
 *
 * @module
 */
import { html } from "hono/html";
import type { KeyStatus } from "../keys/mod.ts";
import { notice } from "./fragments.ts";
import type { Html } from "./responses.ts";

/** What the keys list is filtered by; absent means no filter. */
export interface KeyListFilters {
  /** "Search keys": a prefix of the name, the start or the user. */
  q?: string;
  /** One user's keys, exactly. */
  user?: string;
  /** Active or revoked only; absent is all. */
  status?: KeyStatus;
  /** The 1-based page, above 1. */
  page?: string;
}

const NAMES = ["q", "user", "status", "page"] as const;

/**
 * The filters in a query string or a posted form.
 *
 * @param params The URL's search parameters or the form.
 * @returns The filters given (an unknown status or page is dropped).
 */
export function readKeyFilters(params: URLSearchParams): KeyListFilters {
  const given = (name: string) => params.get(name)?.trim().slice(0, 200) || undefined;
  const status = given("status");
  const page = given("page");
  // A user id is matched exactly, as stored: "bob " is not "bob" (trimming it would list, and revoke, bob's keys).
  const user = params.get("user") ?? "";
  return {
    q: given("q"),
    user: user.length > 0 && user.length <= 200 ? user : undefined,
    status: status === "active" || status === "revoked" ? status : undefined,
    page: page !== undefined && /^[1-9][0-9]{0,5}$/.test(page) ? page : undefined,
  };
}

/**
 * The filters as a query string.
 *
 * @param filters The filters.
 * @param extra More parameters (such as `revoked`).
 * @returns `?…`, or an empty string when there is nothing to carry.
 */
export function keyFiltersQuery(filters: KeyListFilters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of NAMES) if (filters[name] !== undefined) params.set(name, filters[name]);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * The filters as hidden fields of a form, so its answer leads back to the same list.
 *
 * @param filters The filters.
 * @returns The fields.
 */
export function keyFilterFields(filters: KeyListFilters): Html {
  return html`${
    NAMES.filter((name) => filters[name] !== undefined).map((name) =>
      html`<input type="hidden" name="${name}" value="${filters[name]}">`
    )
  }`;
}

/**
 * What a revoke's redirect tells the operator: `?revoked=N`.
 *
 * @param revoked The `revoked` parameter.
 * @returns The notice, or nothing.
 */
export function revokedNotice(revoked: string | null): Html | string {
  if (revoked === null || !/^[0-9]{1,6}$/.test(revoked)) return "";
  const n = Number(revoked);
  if (n === 0) return notice("notice", "No key was revoked: none of them was active.");
  return notice("success", n === 1 ? "The key is revoked." : `${n} keys are revoked.`);
}
