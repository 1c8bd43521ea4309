/**
 * Operators, sessions and the setup token: what the feature's repository offers, all the SQL of its tables
 * behind it (implemented on libSQL in this folder).
 *
 * @module
 */
import type { CloudStorageMethods } from "../database/mod.ts";

/** Operators, sessions and the setup token: the repository. */
export type OperatorRepository = Pick<
  CloudStorageMethods,
  | "createOperator"
  | "findOperator"
  | "findOperatorByEmail"
  | "listOperators"
  | "countOperators"
  | "updateOperator"
  | "spendTotpStep"
  | "spendRecoveryCode"
  | "removeOperator"
  | "createSession"
  | "findSession"
  | "touchSession"
  | "deleteSession"
  | "purgeSessions"
  | "createSetupToken"
  | "setupTokenValid"
  | "setupFirstOperator"
>;
