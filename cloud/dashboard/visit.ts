/**
 * A request to the dashboard, signed in or not, and what follows from it.
 *
 * @module
 */

/** A request to the dashboard. */
export interface Visit {
  /** The request. */
  req: Request;
  /** The time, in milliseconds. */
  now: number;
  /** The dashboard's origin as browsers see it: its public URL's, else the request's. */
  origin: string;
  /** The client's address, or `null`. */
  address: string | null;
}

/**
 * Whether browsers reach the dashboard over https: its origin's scheme, so cookies get `Secure` and answers HSTS.
 *
 * @param visit The request (its origin).
 * @returns `true` for an `https:` origin.
 */
export function overHttps(visit: Pick<Visit, "origin">): boolean {
  return visit.origin.startsWith("https:");
}
