/**
 * `serve`: the cloud on srvx (Node, Deno and Bun alike), stopping cleanly on
 * SIGINT and SIGTERM: no new connections, waiting long polls answered,
 * in-flight requests finished, the database closed.
 *
 * @module
 */
import process from "node:process";
import { serve } from "srvx";
import { createCloud } from "../create_cloud.ts";
import { openDatabase } from "../../core/db/database.ts";
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
  // One client for the cloud and the setup link, so even a `:memory:` database is the same one.
  const { client } = await openDatabase(target.url, { authToken: target.authToken });
  const dashboard = options.dashboard ?? true;
  const cloud = createCloud({ db: client, dashboard });
  await cloud.ready;
  const setupLink = dashboard ? await createSetupLink(await openCloudStorage(client)) : null;
  const server = serve({
    port: options.port,
    hostname: options.host,
    fetch: cloud.handle,
    silent: true,
    gracefulShutdown: false,
  });
  await server.ready();
  const stopped = Promise.withResolvers<void>();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests…`);
    // Stop accepting, answer long polls at once, let the rest finish, then close the database.
    Promise.all([server.close(), cloud.close()]).then(() => client.close()).then(
      () => stopped.resolve(),
      stopped.reject,
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  const port = new URL(server.url!).port;
  const shown = options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  console.log(`svc cloud listening on http://${shown}:${port}/v1 (db: ${displayUrl(target.url)})`);
  if (dashboard) console.log(`dashboard: http://${shown}:${port}/dashboard`);
  if (setupLink) {
    console.log(
      `No operator yet. Create the first admin within 1 hour with this one-time link:\n  http://${shown}:${port}${setupLink}\n` +
        "or run: admin create --email YOU@EXAMPLE.COM (password on stdin)",
    );
  }

  await stopped.promise;
  console.log("svc cloud stopped");
}
