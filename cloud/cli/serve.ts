/**
 * `serve`: the cloud on srvx (Node, Deno and Bun alike), stopping cleanly on
 * SIGINT and SIGTERM: no new connections, waiting long polls answered,
 * in-flight requests finished, the database closed.
 *
 * @module
 */
import process from "node:process";
import { serve } from "srvx";
import { listenError } from "../../adapters/_listen_error.ts";
import { reachableUrl } from "../../adapters/_reachable_url.ts";
import { createCloud } from "../create_cloud.ts";
import { openCloudStorage } from "../storage/libsql_cloud_storage.ts";
import { createSetupLink } from "../dashboard/setup_link.ts";
import { type DatabaseTarget, displayUrl } from "./database_url.ts";

/** Where to listen. */
export interface ServeOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /** Address. */
  host: string;
  /** Serve the dashboard at `/dashboard` (default `true`). */
  dashboard?: boolean;
}

/**
 * Serves the cloud until SIGINT or SIGTERM.
 *
 * @param target The database.
 * @param options Port and address.
 * @returns When the server has stopped.
 */
export async function runServe(target: DatabaseTarget, options: ServeOptions): Promise<void> {
  const dashboard = options.dashboard ?? true;
  const cloud = createCloud({ db: target.url, authToken: target.authToken, dashboard });
  await cloud.ready;
  const setupLink = dashboard ? await setupLinkFor(target) : null;
  let server: ReturnType<typeof serve>;
  try {
    server = serve({
      port: options.port,
      hostname: options.host,
      fetch: cloud.handle,
      silent: true,
      gracefulShutdown: false,
    });
    await server.ready();
  } catch (error) {
    await cloud.close(); // nothing may keep the process alive after the one line main.ts prints
    throw listenError(error, options.host, options.port);
  }
  const stopped = Promise.withResolvers<void>();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests…`);
    // Stop accepting, answer long polls at once, let the rest finish, then close the database.
    Promise.all([server.close(), cloud.close()]).then(
      () => stopped.resolve(),
      stopped.reject,
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  const url = reachableUrl(options.host, Number(new URL(server.url!).port));
  console.log(`svc cloud listening on ${url}/v1 (db: ${displayUrl(target.url)})`);
  if (dashboard) console.log(`dashboard: ${url}/dashboard`);
  if (setupLink) {
    console.log(
      `No operator yet. Create the first admin within 1 hour with this one-time link:\n  ${url}${setupLink}\n` +
        "or run: admin create --email YOU@EXAMPLE.COM (password on stdin)",
    );
  }

  await stopped.promise;
  console.log("svc cloud stopped");
}

/** The one-time setup link while no operator exists (a `:memory:` database has nobody to share it with: none). */
async function setupLinkFor(target: DatabaseTarget): Promise<string | null> {
  if (target.url === ":memory:") return null;
  const storage = await openCloudStorage(target.url, { authToken: target.authToken });
  try {
    return await createSetupLink(storage);
  } finally {
    await storage.close();
  }
}
