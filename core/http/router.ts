/**
 * A small route table matcher shared by `/svc` and `/v1`. Route tables are
 * plain data, so tests and documents (the auth matrix, OpenAPI) can walk them.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";

/** The HTTP methods routes use. */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** The part of a route the matcher needs: a method and a path such as `/svc/keys/:id`. */
export interface RoutePattern {
  /** HTTP method. */
  method: Method;
  /** Path with `:name` segments. */
  path: string;
}

/** A matched route and its path parameters. */
export interface Match<R extends RoutePattern> {
  /** The route. */
  route: R;
  /** Decoded `:name` segments. */
  params: Record<string, string>;
}

interface Compiled<R> {
  route: R;
  segments: string[];
}

/**
 * Compiles a route table into a matcher. An unknown path throws `NOT_FOUND`;
 * a known path with another method throws `METHOD_NOT_ALLOWED` with `Allow`.
 *
 * @param routes The route table.
 * @param prefix The mount prefix (such as `/svc`): a path without it is not found, so
 * a handler used as a fall-through never answers for the app's own paths; a route outside it
 * (OAuth's discovery documents at the origin's root) is matched by its exact path.
 * @returns `match(method, pathname)`.
 */
export function createRouter<R extends RoutePattern>(
  routes: readonly R[],
  prefix: string,
): (method: string, pathname: string) => Match<R> {
  const compiled: Compiled<R>[] = routes.map((route) => ({ route, segments: route.path.split("/").slice(1) }));
  const outside = new Set(routes.map((route) => route.path).filter((path) => !path.startsWith(prefix + "/")));
  return (method, pathname) => {
    if (!pathname.startsWith(prefix + "/") && !outside.has(pathname)) throw new SvcError("NOT_FOUND", "Not found");
    const parts = pathname.split("/").slice(1);
    let allow: string[] | undefined;
    for (const { route, segments } of compiled) {
      const params = matchSegments(segments, parts);
      if (params === null) continue;
      if (route.method === method) return { route, params };
      (allow ??= []).push(route.method);
    }
    if (allow) {
      throw new SvcError("METHOD_NOT_ALLOWED", `Method ${method} is not allowed here`, {
        headers: { allow: allow.join(", ") },
      });
    }
    throw new SvcError("NOT_FOUND", "Not found");
  };
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.startsWith(":")) {
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
      if (value === "") return null;
      (params ??= {})[segment.slice(1)] = value;
    } else if (segment !== parts[i]) {
      return null;
    }
  }
  return params ?? {};
}

/**
 * The pathname of a request URL, without building a URL object (a hot path).
 *
 * @param url An absolute URL.
 * @returns Its pathname, `/` when it has none.
 */
export function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 ? undefined : end);
}
