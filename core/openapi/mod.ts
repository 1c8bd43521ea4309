/**
 * OpenAPI 3.1 documents built from route tables, and the components both sides share.
 *
 * @module
 */
export type { SchemaComponents } from "./openapi_components.ts";
export { openApiDocument, openApiPath } from "./openapi_document.ts";
export type { OpenApiOptions } from "./openapi_document.ts";
