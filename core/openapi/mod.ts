/**
 * OpenAPI 3.1 documents built from route tables, and the components both sides share.
 *
 * @module
 */
export * from "./openapi_components.ts";
export * from "./openapi_document.ts";
