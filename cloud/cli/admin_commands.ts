/**
 * `admin create|list|remove|password`: the dashboard's operators from the
 * command line. Passwords come from stdin, never from the arguments.
 *
 * @module
 */
import { createOperatorService, type OperatorRole, type OperatorService } from "../operators/mod.ts";
import { OPERATOR_ROLES } from "../operators/mod.ts";
import { operatorInputProblem } from "../operators/mod.ts";
import { CLI_ACTOR } from "../audit/mod.ts";
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
    const service = createOperatorService(storage);
    if (action === "list") {
      const operators = (await service.list()).map((o) => ({
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
    if (action === "create") return await create(service, email, options);
    const operator = await service.findByEmail(email);
    if (action === "remove" || action === "password") {
      if (!operator) throw new CommandError("NOT_FOUND", `No operator ${email}`);
    }
    if (action === "remove") {
      await service.remove(operator!, CLI_ACTOR);
      return { json: { ok: true, email }, text: `Removed ${email}; their sessions ended.` };
    }
    if (action === "password") {
      const password = await options.readPassword();
      const problem = operatorInputProblem(null, password);
      if (problem) throw new CommandError("VALIDATION_ERROR", problem);
      await service.setPassword(operator!, password, CLI_ACTOR);
      return { json: { ok: true, email }, text: `New password set for ${email}; their sessions ended.` };
    }
    throw new CommandError("USAGE", `Unknown admin command: ${action ?? "(none)"}`);
  });
}

async function create(service: OperatorService, email: string, options: AdminOptions): Promise<CommandOutput> {
  const role = (options.role ?? "admin") as OperatorRole;
  if (!OPERATOR_ROLES.includes(role)) throw new CommandError("USAGE", "--role must be admin or viewer");
  const password = await options.readPassword();
  const problem = operatorInputProblem(email, password);
  if (problem) throw new CommandError("VALIDATION_ERROR", problem);
  const operator = await service.create(email, role, password, CLI_ACTOR);
  if (operator === null) throw new CommandError("CONFLICT", `${email} is already an operator`);
  return {
    json: { email: operator.email, role, createdAt: operator.createdAt },
    text: `Created ${role} ${operator.email}. Sign in at /dashboard/sign-in.`,
  };
}
