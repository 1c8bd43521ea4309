/**
 * `admin create|list|remove|password`: the dashboard's operators from the
 * command line. Passwords come from stdin, never from the arguments.
 *
 * @module
 */
import type { CloudRepositories } from "../open_cloud_storage.ts";
import type { OperatorRole } from "../operators/mod.ts";
import { OPERATOR_ROLES } from "../operators/mod.ts";
import { newOperator, operatorInputProblem } from "../operators/mod.ts";
import { hashPassword } from "../operators/mod.ts";
import { type AuditEntryInput, auditRecord, CLI_ACTOR } from "../audit/mod.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { CommandError, type CommandOutput, withStorage } from "./project_commands.ts";
import { printable } from "./terminal_text.ts";

/** The options of an admin command. */
export interface AdminOptions {
  /** `--email`. */
  email?: string;
  /** `--role`. */
  role?: string;
  /** Reads the password from stdin (called only by the commands that need one). */
  readPassword: () => Promise<string>;
}

/**
 * Runs an admin command on the database.
 *
 * @param target The database.
 * @param words The command words after `admin`.
 * @param options `--email`, `--role` and the password reader.
 * @returns What to print.
 */
export async function runAdminCommand(
  target: DatabaseTarget,
  words: string[],
  options: AdminOptions,
): Promise<CommandOutput> {
  const [action] = words;
  const email = options.email?.trim().toLowerCase();
  return await withStorage(target, async (storage) => {
    if (action === "list") {
      const operators = (await storage.operators.listOperators()).map((o) => ({
        email: o.email,
        role: o.role,
        twoFactor: o.totpSecret !== null,
        createdAt: o.createdAt,
      }));
      return {
        json: { operators },
        text: operators.length
          ? operators.map((o) => printable(`${o.email}  ${o.role}${o.twoFactor ? "  (two-factor)" : ""}`)).join("\n")
          : "No operators yet. Create one with: admin create --email E (password on stdin)",
      };
    }
    if (!email) throw new CommandError("USAGE", `admin ${action ?? ""} needs --email EMAIL`.replace("  ", " "));
    if (action === "create") return await create(storage, email, options);
    const operator = await storage.operators.findOperatorByEmail(email);
    if (action === "remove" || action === "password") {
      if (!operator) throw new CommandError("NOT_FOUND", `No operator ${email}`);
    }
    if (action === "remove") {
      await storage.operators.removeOperator(operator!.id, cliEntry("operator.remove", email));
      return { json: { ok: true, email }, text: `Removed ${email}; their sessions ended.` };
    }
    if (action === "password") {
      const password = await options.readPassword();
      const problem = operatorInputProblem(null, password);
      if (problem) throw new CommandError("VALIDATION_ERROR", problem);
      const passwordHash = await hashPassword(password);
      await storage.operators.updateOperator(
        operator!.id,
        { passwordHash },
        now(),
        cliEntry("operator.password", email),
      );
      return { json: { ok: true, email }, text: `New password set for ${email}; their sessions ended.` };
    }
    throw new CommandError("USAGE", `Unknown admin command: ${action ?? "(none)"}`);
  });
}

async function create(storage: CloudRepositories, email: string, options: AdminOptions): Promise<CommandOutput> {
  const role = (options.role ?? "admin") as OperatorRole;
  if (!OPERATOR_ROLES.includes(role)) throw new CommandError("USAGE", "--role must be admin or viewer");
  const password = await options.readPassword();
  const problem = operatorInputProblem(email, password);
  if (problem) throw new CommandError("VALIDATION_ERROR", problem);
  const operator = await newOperator(email, role, password);
  if (!await storage.operators.createOperator(operator, cliEntry("operator.create", email, { role }))) {
    throw new CommandError("CONFLICT", `${email} is already an operator`);
  }
  return {
    json: { email: operator.email, role, createdAt: operator.createdAt },
    text: `Created ${role} ${operator.email}. Sign in at /dashboard/sign-in.`,
  };
}

/** The audit entry of an admin command, written in its change's own transaction. */
function cliEntry(action: string, target: string, detail = {}): AuditEntryInput {
  return auditRecord(CLI_ACTOR, { action, target, detail });
}

function now(): string {
  return new Date().toISOString();
}
