/**
 * The dashboard's operators: identity, passwords, sessions, the second factor, the setup link and the sign-in limiter.
 *
 * @module
 */
export * from "./libsql_operator_administration.ts";
export * from "./libsql_operators.ts";
export * from "./operator_administration.ts";
export * from "./operator_invites.ts";
export * from "./operator_repository.ts";
export * from "./operator_service.ts";
export * from "./operator_storage.ts";
export * from "./operators.ts";
export * from "./passwords.ts";
export * from "./second_factor.ts";
export * from "./sessions.ts";
export * from "./setup_link.ts";
export * from "./sign_in_limiter.ts";
export * from "./hash_gate.ts";
export * from "./sealed_totp_secrets.ts";
export { operatorMigrationSteps } from "./operator_migrations.ts";
