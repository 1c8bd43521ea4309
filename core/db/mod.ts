/**
 * libSQL for both sides: one executor over two engines, opening a database, numbered migrations and row helpers.
 *
 * @module
 */
export * from "./database.ts";
export * from "./executor.ts";
export * from "./rows.ts";
