/**
 * What every adapter's `serve` takes and returns, free of runtime types.
 *
 * @module
 */
import type { ConnectionLimits } from "./connection_guard.ts";

export type { ConnectionLimits };

/** Where to listen. */
export interface ServeOptions {
  /** Port; 0 picks a free one. Default 8000. */
  port?: number;
  /** Interface. Default `0.0.0.0`. */
  hostname?: string;
  /** Connection cap and timeouts (Deno adapter; Node and Bun apply their own). */
  connections?: ConnectionLimits;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, such as `http://127.0.0.1:8000`. */
  url: string;
  /** The port actually bound. */
  port: number;
  /** Stops accepting connections and lets in-flight requests finish. */
  close: () => Promise<void>;
}
