/**
 * Uploading the intent manifest to the cloud, best effort: retried with
 * backoff until it lands (a refused sdkSecret is left to the revocation feed to report).
 *
 * @module
 */
import { isSvcError } from "../errors/mod.ts";
import { retry } from "../retry/mod.ts";
import { reconnectedAfter } from "../logging/mod.ts";
import type { CloudClient } from "./cloud_client.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { ManifestEntry } from "../contract/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** What {@linkcode uploadManifest} needs. */
export interface ManifestUpload {
  /** The cloud client. */
  cloud: CloudClient;
  /** The manifest. */
  entries: ManifestEntry[];
  /** The scopes the app supports. */
  scopes: readonly string[];
  /** First retry delay in milliseconds. Default 500. */
  retryMinMs?: number;
  /** Longest retry delay in milliseconds. Default 30000. */
  retryMaxMs?: number;
  /** Where the first failure is reported. */
  log: ErrorLogger;
  /** Stops retrying. */
  signal: AbortSignal;
  /** The clock of the time it took, in milliseconds. Default the platform's. */
  now?: () => number;
}

/**
 * Uploads the manifest, retrying until it lands or `signal` aborts.
 *
 * @param upload The cloud, the manifest and the retry settings.
 * @returns A promise that settles when the manifest landed or retrying stopped.
 */
export async function uploadManifest(upload: ManifestUpload): Promise<void> {
  const { cloud, entries, scopes, log, signal, retryMinMs = 500, retryMaxMs = 30_000 } = upload;
  const now = upload.now ?? PLATFORM.now;
  const startedAt = now();
  let failed = false;
  const uploaded = await retry(() => cloud.putManifest(entries, scopes).then(() => true), {
    minMs: retryMinMs,
    maxMs: retryMaxMs,
    signal,
    onFailure(error, attempt) {
      failed = true;
      if (attempt > 0) return;
      // A refused sdkSecret is the revocation feed's to report (once a minute, with what to do): one message.
      if (isSvcError(error) && error.code === "CLOUD_CREDENTIALS_REFUSED") return;
      log("the intent manifest could not be uploaded; retrying in the background", error);
    },
  });
  if (uploaded && failed) {
    log(`the intent manifest was uploaded: ${reconnectedAfter(now() - startedAt)}`, undefined);
  }
}
