/**
 * The dashboard's operators: identity, passwords, sessions, the second factor, the setup link and the sign-in limiter.
 *
 * @module
 */
export { operatorAdministration } from "./libsql_operator_administration.ts";
export { operatorStorage } from "./libsql_operators.ts";
export { INVITE_LINK_TTL_MS } from "./operator_administration.ts";
export { INVITE_PATH } from "./operator_invites.ts";
export { operatorMigrationSteps } from "./operator_migrations.ts";
export type { OperatorRepository } from "./operator_repository.ts";
export { createOperatorService } from "./operator_service.ts";
export type { OperatorService, OperatorServiceSeams } from "./operator_service.ts";
export { OPERATOR_ROLES } from "./operator_storage.ts";
export type { OperatorRecord, OperatorRole, OperatorStorage } from "./operator_storage.ts";
export { isEmail, newOperator, operatorInputProblem } from "./operators.ts";
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords.ts";
export { SEALED_PREFIX, sealedOperators, sealStoredSecrets, secretBox } from "./sealed_totp_secrets.ts";
export { newRecoveryCodes, newTotpSecret, totpCode, totpUri } from "./second_factor.ts";
export { cookie, cookiesOf, PRE_SESSION_COOKIE, SESSION_COOKIE } from "./sessions.ts";
export type { Session, SessionLimits } from "./sessions.ts";
export { createSetupLink } from "./setup_link.ts";
export { createSignInLimiter } from "./sign_in_limiter.ts";
export type { SignInAttempt, SignInLimiter, SignInLimits } from "./sign_in_limiter.ts";
