/**
 * Who a client is: one the app registered in its config, one registered
 * through RFC 7591 (`POST /svc/oauth/register`), or one named by its Client ID
 * Metadata Document URL.
 *
 * @module
 */
import { z } from "zod";
import { mintSecret } from "../contract/mod.ts";
import { clientDocuments, type ClientDocumentsOptions, isClientDocumentUrl } from "./client_metadata_document.ts";
import type { OAuthConfig } from "./oauth_config.ts";
import { OAuthError } from "./oauth_error.ts";
import type { OAuthStorage } from "./oauth_storage.ts";
import { redirectUriProblem } from "./redirect_uri.ts";

/** A client, however it is known. */
export interface OAuthClient {
  /** Its id. */
  clientId: string;
  /** Its name (self-declared unless the app configured it). */
  name: string;
  /** Its redirect URIs, matched exactly. */
  redirectUris: string[];
  /** How the app knows it. */
  source: "config" | "registration" | "metadata-document";
}

/** The body of an RFC 7591 registration: what the server reads of it (the rest is ignored). */
const registrationSchema = z.object({
  redirect_uris: z.array(z.unknown()).min(1).max(10),
  client_name: z.string().max(200).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
});

/** The client registry of one OAuth server. */
export interface ClientRegistry {
  /**
   * The client with this id, or `null` when no client has it (a refused metadata document throws). `from`, the
   * request naming it, is what a metadata document's fetch is limited by (its client address).
   */
  find(clientId: string, from?: Request): Promise<OAuthClient | null>;
  /** Registers a public client (RFC 7591); the answer body. */
  register(body: unknown, nowIso: string): Promise<Record<string, unknown>>;
}

/**
 * The client registry.
 *
 * @param config The `oauth` option.
 * @param storage Where registered clients live.
 * @param now The clock, in milliseconds.
 * @param documents The HTTP client and bounds of metadata document fetches (defaults when absent).
 * @returns The registry.
 */
export function clientRegistry(
  config: OAuthConfig,
  storage: OAuthStorage,
  now: () => number,
  documents: Pick<ClientDocumentsOptions, "fetch" | "limits"> = {},
): ClientRegistry {
  const allowInternal = config.allowLoopbackClientIds ?? false;
  const reader = clientDocuments({ ...documents, allowInternal, now });
  const configured = new Map((config.clients ?? []).map((c) => [c.clientId, c]));

  return {
    async find(clientId, from) {
      const own = configured.get(clientId);
      if (own) return { ...own, source: "config" };
      if (isClientDocumentUrl(clientId, allowInternal) || clientId.startsWith("http://")) {
        return { ...await reader.read(clientId, from), source: "metadata-document" };
      }
      const stored = await storage.findClient(clientId);
      return stored && { ...stored, source: "registration" };
    },
    async register(body, nowIso) {
      const parsed = registrationSchema.safeParse(body);
      if (!parsed.success) {
        throw new OAuthError("invalid_client_metadata", "redirect_uris (1 to 10) is required; client_name is text");
      }
      const meta = parsed.data;
      for (const uri of meta.redirect_uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError("invalid_redirect_uri", `A redirect URI ${problem}`);
      }
      if (meta.grant_types?.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
        throw new OAuthError("invalid_client_metadata", "Only authorization_code and refresh_token grants are offered");
      }
      if (meta.response_types?.some((r) => r !== "code")) {
        throw new OAuthError("invalid_client_metadata", "Only the code response type is offered");
      }
      const redirectUris = meta.redirect_uris as string[];
      const name = meta.client_name?.trim() || new URL(redirectUris[0]).host || "An MCP client";
      const clientId = mintSecret("svcc_");
      await storage.insertClient({ clientId, name, redirectUris, createdAt: nowIso });
      return {
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.parse(nowIso) / 1000),
        client_name: name,
        redirect_uris: redirectUris,
        // Every client is public: PKCE proves the code's owner, no secret is issued.
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      };
    },
  };
}
