/**
 * Checking a second factor again on a signed-in page (turning two-factor
 * sign-in off or on): the same limiter as sign-in, counted before the check
 * and released on success, so a stolen or unattended session cannot
 * brute-force a code; turning it off also asks for the password again.
 *
 * @module
 */
import type { OperatorRecord, OperatorService } from "../operators/mod.ts";
import { type SignInAttempt, type SignInLimiter, verifyPassword } from "../operators/mod.ts";

/** What a second-factor check needs. */
export interface ReauthenticationContext {
  /** The services: the operators' (which spend TOTP steps and recovery codes). */
  services: { operators: Pick<OperatorService, "secondFactorOk"> };
  /** The sign-in limiter, shared with sign-in. */
  limiter: SignInLimiter;
  /** The client's address. */
  address: string | null;
  /** The time, in milliseconds. */
  now: number;
}

/** The outcome of a check: passed, failed, or refused without checking for this long (milliseconds). */
export type Reauthentication = { ok: true } | { ok: false; waitMs: number };

/**
 * Runs a check under the sign-in limiter: refused at once while the operator's account or the address must wait,
 * else counted as a failure before it runs and released when it passes.
 *
 * @param ctx Storage, limiter, address and time.
 * @param email The operator's email.
 * @param check The check (password, code).
 * @returns Whether it passed, or how long to wait.
 */
export async function limitedCheck(
  ctx: ReauthenticationContext,
  email: string,
  check: () => Promise<boolean>,
): Promise<Reauthentication> {
  const attempt: SignInAttempt = { address: ctx.address, email, operator: true };
  const waitMs = ctx.limiter.waitMs(attempt, ctx.now);
  if (waitMs > 0) return { ok: false, waitMs };
  ctx.limiter.fail(attempt, ctx.now);
  if (!await check()) return { ok: false, waitMs: 0 };
  ctx.limiter.release(attempt, ctx.now);
  ctx.limiter.succeed(attempt);
  return { ok: true };
}

/**
 * Asks for the password and a second factor again, under the sign-in limiter.
 *
 * @param ctx Storage, limiter, address and time.
 * @param op The signed-in operator.
 * @param password The password typed.
 * @param code The TOTP or recovery code typed.
 * @returns Whether both are right, or how long to wait.
 */
export function reauthenticate(
  ctx: ReauthenticationContext,
  op: OperatorRecord,
  password: string,
  code: string,
): Promise<Reauthentication> {
  return limitedCheck(ctx, op.email, async () => {
    // Both always checked, so the answer's time does not tell which was wrong.
    const passwordOk = await verifyPassword(password.slice(0, 1000), op.passwordHash);
    const codeOk = await ctx.services.operators.secondFactorOk(op, code, ctx.now);
    return passwordOk && codeOk;
  });
}
