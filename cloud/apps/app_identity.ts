/**
 * Who an app instance says it is, read from the headers of its feed polls:
 * `x-svc-instance` (a ULID per instance), `x-svc-app-label`, `x-svc-mode`,
 * `x-svc-sdk-version` and `x-svc-outbox-depth`, each validated or clamped so that
 * nothing unbounded is stored.
 *
 * @module
 */

/** The longest label kept, in characters. */
export const MAX_APP_LABEL = 100;
/** The longest SDK version kept, in characters. */
export const MAX_SDK_VERSION = 40;

/** How an app runs against the cloud. */
export type AppMode = "hybrid" | "cloud";

/** An app instance as it identified itself on a feed poll. */
export interface AppIdentity {
  /** A ULID, upper case. */
  instanceId: string;
  /** A label chosen by the app (at most {@linkcode MAX_APP_LABEL} characters; empty when none). */
  label: string;
  /** `hybrid` or `cloud`, or `null` when it did not say (or said something else). */
  mode: AppMode | null;
  /** The SDK's version, or `null` when it did not say (or sent something that is not a version). */
  sdkVersion: string | null;
  /** The items its outbox held for the cloud when it polled, or `null` when it did not say (or said no count). */
  outboxDepth: number | null;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const VERSION = /^[0-9A-Za-z.+-]+$/;
// Control characters (C0, DEL, C1) and the bidirectional overrides never reach a stored label.
// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Reads an app's identity from a request's headers.
 *
 * @param headers The request's headers.
 * @returns The identity, or `null` when the instance header is missing or not a ULID (then nothing is stored).
 *
 * @example A hybrid app's poll
 * ```ts
 * import { appIdentity } from "./app_identity.ts";
 * const headers = new Headers({ "x-svc-instance": "01JD5Z7Q8R9S0T1V2W3X4Y5Z6A", "x-svc-mode": "hybrid" });
 * appIdentity(headers)?.mode; // "hybrid"
 * ```
 */
export function appIdentity(headers: Headers): AppIdentity | null {
  const instanceId = headers.get("x-svc-instance")?.trim().toUpperCase() ?? "";
  if (!ULID.test(instanceId)) return null;
  const label = [...(headers.get("x-svc-app-label") ?? "").replace(UNPRINTABLE, "").trim()]
    .slice(0, MAX_APP_LABEL).join("");
  const mode = headers.get("x-svc-mode")?.trim().toLowerCase();
  const version = headers.get("x-svc-sdk-version")?.trim() ?? "";
  const depth = headers.get("x-svc-outbox-depth")?.trim() ?? "";
  return {
    instanceId,
    label,
    mode: mode === "hybrid" || mode === "cloud" ? mode : null,
    sdkVersion: version.length > 0 && VERSION.test(version) ? version.slice(0, MAX_SDK_VERSION) : null,
    outboxDepth: /^\d{1,9}$/.test(depth) ? Number(depth) : null,
  };
}
