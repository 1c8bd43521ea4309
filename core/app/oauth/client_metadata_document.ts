/**
 * Client ID Metadata Documents (the MCP 2025-11-25 way): a client_id that is
 * an `https` URL names a JSON document at that URL with the client's name and
 * redirect URIs. It is fetched with a timeout and a size bound, without
 * following redirects, and never from inside the network unless the app allows
 * it (`allowLoopbackClientIds`). Fetched documents are kept a few minutes.
 *
 * @module
 */
import { z } from "zod";
import { isSvcError } from "../../errors/mod.ts";
import { readBody } from "../../http/mod.ts";
import { isInternalHost, isLoopbackHost } from "./network_address.ts";
import { OAuthError } from "./oauth_error.ts";
import { redirectUriProblem } from "./redirect_uri.ts";

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
/** How long a fetch may take. */
export const CLIENT_DOCUMENT_TIMEOUT_MS = 5_000;
const CACHE_MS = 5 * 60_000;
const CACHE_SIZE = 500;

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
}

/**
 * A reader of Client ID Metadata Documents.
 *
 * @param options Whether internal hosts are allowed, and the clock.
 * @returns `read(clientId)`, which throws `invalid_client` for a URL or document it refuses.
 */
export function clientDocuments(options: ClientDocumentsOptions): { read(clientId: string): Promise<DocumentClient> } {
  const cache = new Map<string, { client: DocumentClient; until: number }>();

  async function fetchDocument(clientId: string): Promise<DocumentClient> {
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
    let res: Response;
    try {
      res = await fetch(url, {
        redirect: "manual",
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(CLIENT_DOCUMENT_TIMEOUT_MS),
      });
    } catch {
      throw refused("could not be fetched");
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw refused(`answered ${res.status}`);
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

  return {
    async read(clientId) {
      const hit = cache.get(clientId);
      if (hit && hit.until > options.now()) return hit.client;
      const client = await fetchDocument(clientId);
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(clientId, { client, until: options.now() + CACHE_MS });
      return client;
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
