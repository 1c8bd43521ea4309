/**
 * Client ID Metadata Documents (the MCP 2025-11-25 way): a client_id that is
 * an `https` URL names a JSON document at that URL with the client's name and
 * redirect URIs. It is fetched with a short timeout and a size bound, without
 * following redirects, and never from inside the network unless the app allows
 * it (`allowLoopbackClientIds`). Fetched documents are kept a few minutes.
 *
 * Anyone may name a document, signed out, at the authorization and token
 * endpoints, so fetches are bounded: a few at once and two per host (past them
 * a request is refused at once, never queued), a few a minute per client address
 * (IPv6 per /64), one fetch per URL however many ask at once, and a refused or
 * failed document is remembered a minute. A refusal never tells the status a
 * host answered. They go through their own `fetch`, so that
 * what an outsider triggers can never hold the HTTP client the cloud link's
 * revocations travel on.
 *
 * @module
 */
import { z } from "zod";
import { addressKey, createRateLimiter, type RateLimit } from "../abuse/mod.ts";
import { BoundedMap } from "../cache/mod.ts";
import { isSvcError } from "../errors/mod.ts";
import { clientAddress, readBody } from "../http/mod.ts";
import { isInternalHost, isLoopbackHost } from "./network_address.ts";
import { OAuthError } from "./oauth_error.ts";
import { redirectUriProblem } from "./redirect_uri.ts";
import { PLATFORM } from "../platform/mod.ts";

/** A client described by its metadata document. */
export interface DocumentClient {
  /** The document's URL. */
  clientId: string;
  /** `client_name`, or the URL's host. */
  name: string;
  /** `redirect_uris`. */
  redirectUris: string[];
}

/** The most bytes of a document read. */
export const CLIENT_DOCUMENT_MAX_BYTES = 16 * 1024;

/** The bounds of document fetches. */
export interface ClientDocumentLimits {
  /** How long a fetch (answer and body) may take, in milliseconds. */
  timeoutMs: number;
  /** Fetches in flight at once; past them a request naming an unknown document is refused at once. */
  inFlight: number;
  /** Fetches in flight at once from one host (its name and port), so that one host that never answers holds few. */
  perHost: number;
  /** Fetches per client address (an IPv6 /64). */
  perAddress: RateLimit;
  /** How long a refused or failed document is remembered (refused again without a fetch), in milliseconds. */
  refusalMs: number;
}

/** The bounds of document fetches when none are given. */
export const CLIENT_DOCUMENT_LIMITS: Readonly<ClientDocumentLimits> = {
  timeoutMs: 3_000,
  inFlight: 4,
  perHost: 2,
  perAddress: { limit: 10, windowMs: 60_000, maxEntries: 10_000 },
  refusalMs: 60_000,
};

const CACHE_MS = 5 * 60_000;
const CACHE_SIZE = 500;
const REFUSAL_CACHE_SIZE = 1_000;

const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().min(1).max(200).optional(),
  redirect_uris: z.array(z.string()).min(1).max(20),
  token_endpoint_auth_method: z.literal("none").optional(),
});

/**
 * Whether a client_id is a Client ID Metadata Document URL (an `https` URL with a path; `http` only on loopback
 * when allowed).
 *
 * @param clientId The client_id.
 * @param allowLoopback Whether loopback `http` URLs count.
 * @returns `true` when the client_id is to be fetched.
 */
export function isClientDocumentUrl(clientId: string, allowLoopback: boolean): boolean {
  return clientId.startsWith("https://") || (allowLoopback && clientId.startsWith("http://"));
}

/** Options of {@linkcode clientDocuments}. */
export interface ClientDocumentsOptions {
  /** Allow loopback and private-network hosts (and `http` on loopback). */
  allowInternal: boolean;
  /** The clock, in milliseconds. */
  now: () => number;
  /**
   * The HTTP client of document fetches, kept apart from the cloud link's. Default `globalThis.fetch` (bounded
   * by `limits.inFlight`, so it never holds more than a few of the runtime's connections).
   */
  fetch?: typeof fetch;
  /** The bounds. Default {@linkcode CLIENT_DOCUMENT_LIMITS}. */
  limits?: Partial<ClientDocumentLimits>;
}

/** A reader of Client ID Metadata Documents. */
export interface ClientDocuments {
  /**
   * The client a document describes.
   *
   * @param clientId The document's URL.
   * @param from The request that names it, whose client address is limited (absent: not limited per address).
   * @returns The client.
   * @throws {OAuthError} `invalid_client` for a URL or document it refuses, or a fetch over a bound.
   */
  read(clientId: string, from?: Request): Promise<DocumentClient>;
  /** Fetches in flight now. */
  readonly inFlight: number;
}

/**
 * A reader of Client ID Metadata Documents.
 *
 * @param options Whether internal hosts are allowed, the clock, the HTTP client and the bounds.
 * @returns The reader.
 */
export function clientDocuments(options: ClientDocumentsOptions): ClientDocuments {
  const limits: ClientDocumentLimits = { ...CLIENT_DOCUMENT_LIMITS, ...options.limits };
  const fetchOut = options.fetch ?? PLATFORM.fetch;
  const cache = new BoundedMap<string, DocumentClient>({ maxEntries: CACHE_SIZE, ttlMs: CACHE_MS, now: options.now });
  const refusals = new BoundedMap<string, OAuthError>({
    maxEntries: REFUSAL_CACHE_SIZE,
    ttlMs: limits.refusalMs,
    now: options.now,
  });
  const perAddress = createRateLimiter(limits.perAddress, options.now);
  /** The fetch of each URL in flight: whoever names it meanwhile waits for the same one. */
  const pending = new Map<string, Promise<DocumentClient>>();
  /** Fetches in flight by host. */
  const hosts = new Map<string, number>();

  function checkedUrl(clientId: string): URL {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw refused("is not a URL");
    }
    const loopbackHttp = url.protocol === "http:" && options.allowInternal && isLoopbackHost(url.hostname);
    if (url.protocol !== "https:" && !loopbackHttp) throw refused("must be an https URL");
    if (url.pathname === "/" || url.hash || clientId.includes("#") || url.username || url.password) {
      throw refused("must have a path and no fragment or credentials");
    }
    if (!options.allowInternal && isInternalHost(url.hostname)) throw refused("points inside the network");
    return url;
  }

  async function fetchDocument(clientId: string, url: URL): Promise<DocumentClient> {
    let res: Response;
    const signal = AbortSignal.timeout(limits.timeoutMs); // the body's reading too
    try {
      res = await fetchOut(url, { redirect: "manual", headers: { accept: "application/json" }, signal });
    } catch {
      throw refused("could not be fetched");
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw refused("could not be fetched"); // never the status: the caller learns nothing of other hosts
    }
    let text: string;
    try {
      text = await readBounded(res);
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      throw refused("could not be read");
    }
    let parsed: z.infer<typeof documentSchema>;
    try {
      parsed = documentSchema.parse(JSON.parse(text));
    } catch {
      throw refused("is not a client metadata document");
    }
    if (parsed.client_id !== clientId) throw refused("names another client_id");
    const bad = parsed.redirect_uris.find((u) => redirectUriProblem(u) !== null);
    if (bad !== undefined) throw refused("lists a redirect URI that is not allowed");
    return { clientId, name: parsed.client_name ?? url.host, redirectUris: parsed.redirect_uris };
  }

  /** Fetches a document once, remembering the client or the refusal. */
  async function fetchOnce(clientId: string, url: URL): Promise<DocumentClient> {
    try {
      const client = await fetchDocument(clientId, url);
      cache.set(clientId, client);
      return client;
    } catch (error) {
      if (error instanceof OAuthError) refusals.set(clientId, error);
      throw error;
    } finally {
      pending.delete(clientId);
      const left = (hosts.get(url.host) ?? 1) - 1;
      if (left > 0) hosts.set(url.host, left);
      else hosts.delete(url.host);
    }
  }

  return {
    read(clientId, from) {
      const hit = cache.get(clientId);
      if (hit !== undefined) return Promise.resolve(hit);
      const known = refusals.get(clientId);
      if (known !== undefined) return Promise.reject(known);
      const inFlight = pending.get(clientId);
      if (inFlight !== undefined) return inFlight;
      let url: URL;
      try {
        url = checkedUrl(clientId);
      } catch (error) {
        return Promise.reject(error);
      }
      if (pending.size >= limits.inFlight) {
        return Promise.reject(refused("cannot be fetched now: too many documents are being fetched; try again"));
      }
      const fromHost = hosts.get(url.host) ?? 0;
      if (fromHost >= limits.perHost) {
        return Promise.reject(refused("cannot be fetched now: too many documents are being fetched from its host"));
      }
      const address = from === undefined ? null : clientAddress(from);
      if (address !== null && !perAddress.take(addressKey(address)).allowed) {
        return Promise.reject(refused("cannot be fetched now: too many documents fetched for this address"));
      }
      hosts.set(url.host, fromHost + 1);
      const fetching = fetchOnce(clientId, url);
      pending.set(clientId, fetching);
      return fetching;
    },
    get inFlight() {
      return pending.size;
    },
  };
}

function refused(why: string): OAuthError {
  return new OAuthError("invalid_client", `The client_id metadata document URL ${why}`);
}

/** Reads a body up to the bound (the one body reader of `/svc` and `/v1`); over it, the document is refused. */
async function readBounded(res: Response): Promise<string> {
  try {
    return new TextDecoder().decode(await readBody(res, CLIENT_DOCUMENT_MAX_BYTES));
  } catch (error) {
    if (isSvcError(error) && error.code === "PAYLOAD_TOO_LARGE") {
      throw refused(`is over ${CLIENT_DOCUMENT_MAX_BYTES} bytes`);
    }
    throw error;
  }
}
