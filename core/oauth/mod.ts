/**
 * The app as the OAuth 2.1 authorization server of its `/svc`, for MCP clients:
 * discovery, authorization with consent, tokens that are agent keys.
 *
 * @module
 */
export { isOAuthReturnUrl } from "./authorize_endpoint.ts";
export { htmlPage, pageResponse } from "./consent_page.ts";
export type { ScopeAbout } from "./consent_page.ts";
export { consentTokens } from "./consent_token.ts";
export { readForm } from "./form_body.ts";
export { isOAuthDiscoveryPath, isOAuthPath, OAUTH_DISCOVERY_ROUTES, OAUTH_PATHS } from "./discovery.ts";
export { isInternalHost } from "./network_address.ts";
export { OAUTH_DEFAULTS, oauthConfigSchema } from "./oauth_config.ts";
export type { OAuthClientConfig, OAuthConfig } from "./oauth_config.ts";
export { OAUTH_MIGRATION, OAUTH_UNUSED_CLIENTS_MIGRATION } from "./oauth_migration.ts";
export type { OAuthSide } from "./oauth_routes.ts";
export { createOAuthServer, withOAuth } from "./oauth_server.ts";
export type { OAuthServerOptions } from "./oauth_server.ts";
export { oauthStorage } from "./oauth_storage.ts";
export type { OAuthStorage } from "./oauth_storage.ts";
export { s256 } from "./pkce.ts";
