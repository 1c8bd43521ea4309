// The three storage backends every storage suite runs on: `:memory:`, a `file:`
// database and a remote `http://` database (the Hrana test fixture, with a token).
// The cloud's storage by default; the app's with its own opener.
import { after } from "node:test";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import { type HranaServer, startHranaServer } from "../../fixtures/hrana_server.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

export interface StorageBackends<S = CloudRepositories> {
  /** Name and opener of each backend. */
  list: [string, () => Promise<S>][];
  /** How many requests the remote backend served (to prove the remote path ran). */
  remoteRequests(): number;
}

/** Opens a storage on a libSQL URL. */
export type StorageOpener<S> = (url: string, options?: { authToken?: string }) => Promise<S>;

/** The backends of one test file; the folder and the Hrana server go away after the file. */
export function storageBackends(): StorageBackends<CloudRepositories>;
export function storageBackends<S>(open: StorageOpener<S>): StorageBackends<S>;
export function storageBackends<S>(open?: StorageOpener<S>): StorageBackends<S> {
  const openStorage = (open ?? openCloudStorage) as StorageOpener<S>;
  const dir = tempDir();
  let hrana: HranaServer | undefined;
  after(async () => {
    await hrana?.close();
    dir.remove();
  });
  return {
    list: [
      [":memory:", () => openStorage(":memory:")],
      ["file:", () => openStorage(`file:${dir.file("storage.db")}`)],
      ["remote http:// (Hrana fixture)", async () => {
        hrana = await startHranaServer(dir.file("remote.db"), { authToken: "test-token" });
        return openStorage(hrana.url, { authToken: "test-token" });
      }],
    ],
    remoteRequests: () => hrana?.requests ?? 0,
  };
}
