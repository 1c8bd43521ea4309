/**
 * The app as the OAuth 2.1 authorization server of its `/svc`, for MCP clients:
 * discovery, authorization with consent, tokens that are agent keys.
 *
 * @module
 */
export * from "./authorization_request.ts";
export * from "./authorize_endpoint.ts";
export * from "./client_metadata_document.ts";
export * from "./clients.ts";
export * from "./consent_page.ts";
export * from "./consent_token.ts";
export * from "./discovery.ts";
export * from "./form_body.ts";
export * from "./network_address.ts";
export * from "./oauth_config.ts";
export * from "./oauth_context.ts";
export * from "./oauth_error.ts";
export * from "./oauth_migration.ts";
export * from "./oauth_server.ts";
export * from "./oauth_storage.ts";
export * from "./pkce.ts";
export * from "./redirect_uri.ts";
export * from "./revocation_endpoint.ts";
export * from "./token_endpoint.ts";
export * from "./oauth_routes.ts";
