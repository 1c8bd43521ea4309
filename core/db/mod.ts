/**
 * libSQL for both sides: opening a database, numbered migrations and row helpers.
 *
 * @module
 */
export * from "./database.ts";
export * from "./rows.ts";
