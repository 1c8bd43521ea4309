/**
 * The metrics of one app or one cloud, in the Prometheus text exposition, from `prom-client` (the Prometheus
 * project's Node client, which runs unchanged on Deno and Bun): a registry per instance (never the library's global
 * one), requests by route and status with their durations, counters the features increment, and gauges read when a
 * scraper asks (a database count costs nothing between scrapes).
 *
 * @module
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What names a route in the metrics: its method and its path pattern (never the raw path, whose ids are unbounded). */
export interface RouteLabel {
  /** `GET`, `POST`, … */
  method: string;
  /** The route's pattern, such as `/v1/sdk/keys/:id`. */
  path: string;
}

/** One value of a gauge read at scrape time, with its labels. */
export interface GaugeReading {
  /** The labels, by name. */
  labels: Record<string, string>;
  /** The value. */
  value: number;
}

/** The request duration buckets, in seconds: from a cached key check to a long poll's hold. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25];

/** Every request that matched no route is counted under this path. */
const UNMATCHED = "(unmatched)";

/** The metrics of one app or one cloud. */
export class ServiceMetrics {
  /** The registry this instance's metrics are in. */
  readonly registry: Registry;
  /** The exposition's content type. */
  readonly contentType: string;
  readonly #prefix: string;
  readonly #requests: Counter<"method" | "route" | "status">;
  readonly #durations: Histogram<"method" | "route">;
  /** Label children by route and status: a request increments a child, never hashes its labels again. */
  readonly #children = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();

  /**
   * Creates the metrics of one side.
   *
   * @example A cloud's requests
   * ```ts
   * import { ServiceMetrics } from "./service_metrics.ts";
   *
   * const metrics = new ServiceMetrics("svc_cloud");
   * metrics.observeRequest({ method: "POST", path: "/v1/events" }, 202, 0.0004);
   * console.log((await metrics.text()).includes('route="/v1/events"')); // true
   * ```
   *
   * @param prefix The prefix of every metric's name: `svc_app` or `svc_cloud`.
   */
  constructor(prefix: "svc_app" | "svc_cloud") {
    this.#prefix = prefix;
    this.registry = new Registry();
    this.contentType = this.registry.contentType;
    this.#requests = new Counter({
      name: `${prefix}_http_requests_total`,
      help: "Requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
    });
    this.#durations = new Histogram({
      name: `${prefix}_http_request_duration_seconds`,
      help: "Time to answer a request (to its status and headers), by method and route pattern",
      labelNames: ["method", "route"],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
  }

  /**
   * Counts an answered request.
   *
   * @param route The route it matched, or `null` for none.
   * @param status The answer's status.
   * @param seconds How long it took to answer.
   */
  observeRequest(route: RouteLabel | null, status: number, seconds: number): void {
    const method = route?.method ?? "ANY";
    const path = route?.path ?? UNMATCHED;
    const key = `${method} ${path} ${status}`;
    let child = this.#children.get(key);
    if (child === undefined) {
      child = {
        count: this.#requests.labels(method, path, String(status)),
        duration: this.#durations.labels(method, path),
      };
      this.#children.set(key, child);
    }
    child.count.inc();
    child.duration.observe(seconds);
  }

  /**
   * A counter the caller increments, named `PREFIX_NAME_total`.
   *
   * @param name The name after the prefix, without `_total`.
   * @param help What it counts.
   * @param labelNames Its labels.
   * @returns `inc(labels?, by?)`.
   */
  counter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): { inc(labels?: Partial<Record<L, string>>, by?: number): void } {
    const counter = new Counter<L>({
      name: `${this.#prefix}_${name}_total`,
      help,
      labelNames,
      registers: [this.registry],
    });
    return { inc: (labels = {}, by = 1) => counter.inc(labels, by) };
  }

  /**
   * A histogram of durations by one label, named `PREFIX_NAME`, whose children are made once per label value.
   *
   * @param name The name after the prefix (ending `_seconds`).
   * @param help What it times.
   * @param labelName Its one label.
   * @returns `observe(value, seconds)`.
   */
  timer(name: string, help: string, labelName: string): (value: string, seconds: number) => void {
    const histogram = new Histogram<string>({
      name: `${this.#prefix}_${name}`,
      help,
      labelNames: [labelName],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
    const children = new Map<string, { observe(v: number): void }>();
    return (value, seconds) => {
      let child = children.get(value);
      if (child === undefined) children.set(value, child = histogram.labels(value));
      child.observe(seconds);
    };
  }

  /**
   * A gauge read when a scraper asks, named `PREFIX_NAME`: `read` returns every value with its labels (a value
   * missing from one reading is gone from the exposition).
   *
   * @param name The name after the prefix.
   * @param help What it measures.
   * @param labelNames Its labels.
   * @param read Reads the values now.
   */
  gauge(name: string, help: string, labelNames: readonly string[], read: () => Promise<GaugeReading[]>): void {
    new Gauge({
      name: `${this.#prefix}_${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const readings = await read();
        this.reset();
        for (const { labels, value } of readings) this.set(labels, value);
      },
    });
  }

  /**
   * The exposition, every gauge read now.
   *
   * @returns The Prometheus text format.
   */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
