/**
 * The package's name and version, as documents and the MCP endpoint announce them.
 * `tests/package_test.ts` keeps them equal to deno.json's.
 *
 * @module
 */

/** The JSR package name. */
export const PACKAGE_NAME = "@svc/agent-access";
/** The package version. */
export const PACKAGE_VERSION = "0.1.0";
