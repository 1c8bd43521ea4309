/**
 * Operators, sessions and the setup token: what the feature's repository offers, with no SQL; all the SQL of its
 * tables is behind it, on libSQL in this folder.
 *
 * @module
 */
import type { OperatorStorage } from "./operator_storage.ts";
import type { OperatorAdministrationStorage } from "./operator_administration.ts";

/** Operators, sessions, the setup token, invites and the admins' changes: the repository. */
export type OperatorRepository = OperatorStorage & OperatorAdministrationStorage;
