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
  /** Requests by route and status, counted here and added to `svc_*_http_requests_total` when it is read. */
  readonly #counts = new Map<string | number, RequestCount>();
  /**
   * The counts of `#counts` by route object and status: a route of the dispatcher's table is the same object from
   * request to request, so its count is found without building its text key (0.15–0.35 µs a request). Only a way to
   * an entry of `#counts`, which keeps every count: a route object collected takes no pending count with it.
   */
  #byRoute = new WeakMap<RouteLabel, Map<number, RequestCount>>();
  readonly #durations: RequestDurations;

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
    const counts = this.#counts;
    const requests = new Counter({
      name: `${prefix}_http_requests_total`,
      help: "Requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
      collect() {
        for (const count of counts.values()) {
          if (count.pending === 0) continue;
          this.inc(count.labels, count.pending);
          count.pending = 0;
        }
      },
    });
    const reset = requests.reset.bind(requests);
    requests.reset = () => { // `registry.resetMetrics()`: the requests not yet added are forgotten too
      counts.clear(); // and counted again in the order they are seen, as prom-client's counter does
      this.#byRoute = new WeakMap();
      reset();
    };
    this.#durations = new RequestDurations(
      `${prefix}_http_request_duration_seconds`,
      "Time to answer a request (to its status and headers), by method and route pattern",
    );
    this.registry.registerMetric(this.#durations as unknown as Histogram);
  }

  /**
   * Counts an answered request.
   *
   * @param route The route it matched, or `null` for none.
   * @param status The answer's status.
   * @param seconds How long it took to answer.
   */
  observeRequest(route: RouteLabel | null, status: number, seconds: number): void {
    if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`);
    let ofRoute = route === null ? undefined : this.#byRoute.get(route);
    let count = ofRoute?.get(status);
    // An object changed since (not the dispatcher's, whose routes never change) is looked up by its text again.
    if (count === undefined || count.labels.route !== route!.path || count.labels.method !== route!.method) {
      count = this.#count(route, status);
      if (route !== null) {
        if (ofRoute === undefined) this.#byRoute.set(route, ofRoute = new Map());
        ofRoute.set(status, count);
      }
    }
    count.pending++;
    if (count.durations.gone) count.durations = this.#durations.series(count.labels.method, count.labels.route);
    this.#durations.observe(count.durations, seconds);
  }

  /** The count of a route (by its method and path) and status, made on its first request. */
  #count(route: RouteLabel | null, status: number): RequestCount {
    const key = route === null ? status : `${route.method} ${route.path} ${status}`;
    let count = this.#counts.get(key);
    if (count === undefined) {
      const method = route?.method ?? "ANY";
      const path = route?.path ?? UNMATCHED;
      count = {
        labels: { method, route: path, status: String(status) },
        pending: 0,
        durations: this.#durations.series(method, path),
      };
      this.#counts.set(key, count);
    }
    return count;
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

/** Requests of one route and status not yet added to the counter (prom-client hashes the labels of every `inc`). */
interface RequestCount {
  labels: { method: string; route: string; status: string };
  pending: number;
  /** Its route's durations. */
  durations: DurationSeries;
}

/** One route's durations: a count per bucket (not cumulative), the sum and the count. */
interface DurationSeries {
  labels: { method: string; route: string };
  buckets: number[];
  sum: number;
  count: number;
  /** Forgotten by a reset: the route's next duration starts a new series. */
  gone: boolean;
}

/**
 * The request duration histogram, registered in the instance's registry as a prom-client metric: the values and the
 * exposition of prom-client's `Histogram` (the same lines in the same order, the sum added in the same order), without
 * its cost on every request (a label object, its validation and its hash for each observation).
 */
class RequestDurations {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly name: string;
  readonly help: string;
  readonly #series = new Map<string, DurationSeries>();

  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  /** A route's durations, made on first use. */
  series(method: string, route: string): DurationSeries {
    const key = `${method} ${route}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels: { method, route }, buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0, gone: false };
      this.#series.set(key, series);
    }
    return series;
  }

  /** Counts one duration (a finite number of seconds) of a route's. */
  observe(series: DurationSeries, seconds: number): void {
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      if (seconds <= DURATION_BUCKETS[i]) {
        series.buckets[i]++;
        break;
      }
    }
    series.sum += seconds;
    series.count++;
  }

  /** What prom-client's `Histogram.get()` answers: per route, the cumulative buckets, `+Inf`, the sum, the count. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: unknown[] }> {
    const values: unknown[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, buckets, sum, count } of this.#series.values()) {
      let below = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        below += buckets[i];
        values.push({ value: below, metricName: bucketName, exemplar: null, labels: { le: bound, ...labels } });
      });
      values.push({ value: count, metricName: bucketName, exemplar: null, labels: { le: "+Inf", ...labels } });
      values.push({ value: sum, metricName: `${this.name}_sum`, exemplar: undefined, labels: { ...labels } });
      values.push({ value: count, metricName: `${this.name}_count`, exemplar: undefined, labels: { ...labels } });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** Forgets every series (`registry.resetMetrics()`), as prom-client's histogram does. */
  reset(): void {
    for (const series of this.#series.values()) series.gone = true;
    this.#series.clear();
  }
}
