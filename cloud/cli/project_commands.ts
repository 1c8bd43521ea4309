/**
 * `project create`, `project rotate-secret`, `project list` and `migrate`.
 *
 * @module
 */
import { migrate, openDatabase } from "../../core/db/mod.ts";
import { openCloudStorage } from "../open_cloud_storage.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "../database/mod.ts";
import { createProjectService } from "../projects/mod.ts";
import { CLI_ACTOR } from "../audit/mod.ts";
import type { CloudRepositories } from "../open_cloud_storage.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { printable } from "./terminal_text.ts";

/** What a command prints: one JSON object for `--json`, and lines for people. */
export interface CommandOutput {
  /** The `--json` answer. */
  json: Record<string, unknown>;
  /** The human answer. */
  text: string;
}

/** A failure to report with exit code 1. */
export class CommandError extends Error {
  /** A machine code for `--json`. */
  readonly code: string;

  /**
   * Creates the error.
   *
   * @param code A machine code.
   * @param message The message.
   */
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Runs a project command on the database.
 *
 * @param target The database.
 * @param words The command words after `project`.
 * @param name The `--name` value.
 * @returns What to print.
 */
export async function runProjectCommand(
  target: DatabaseTarget,
  words: string[],
  name: string | undefined,
): Promise<CommandOutput> {
  const [action, argument] = words;
  return await withStorage(target, async (storage) => {
    const projects = createProjectService(storage);
    if (action === "create") {
      if (!name?.trim()) throw new CommandError("USAGE", "project create needs --name NAME");
      const { project, sdkSecret } = await projects.create(name.trim(), CLI_ACTOR);
      return {
        json: { projectId: project.id, name: project.name, sdkSecret, createdAt: project.createdAt },
        text: `Project ${printable(project.name)}\n  projectId: ${project.id}\n  sdkSecret: ${sdkSecret}\n` +
          "Store the sdkSecret in your server's secret storage now: it is not shown again.",
      };
    }
    if (action === "rotate-secret") {
      if (!argument) throw new CommandError("USAGE", "project rotate-secret needs PROJECT_ID");
      const sdkSecret = await projects.rotateSecret(argument, CLI_ACTOR);
      if (sdkSecret === null) throw new CommandError("NOT_FOUND", `No project ${argument}`);
      return {
        json: { projectId: argument, sdkSecret },
        text:
          `New sdkSecret for ${argument}: ${sdkSecret}\nThe old secret stopped working. Update and redeploy your app.`,
      };
    }
    if (action === "list") {
      const list = (await projects.list()).map((p) => ({
        projectId: p.id,
        name: p.name,
        createdAt: p.createdAt,
        secretRotatedAt: p.secretRotatedAt,
      }));
      return {
        json: { projects: list },
        text: list.length
          ? list.map((p) => printable(`${p.projectId}  ${p.name}  (created ${p.createdAt})`)).join("\n")
          : "No projects yet. Create one with: project create --name NAME",
      };
    }
    throw new CommandError("USAGE", `Unknown project command: ${action ?? "(none)"}`);
  });
}

/**
 * Applies pending migrations.
 *
 * @param target The database.
 * @returns What to print.
 */
export async function runMigrate(target: DatabaseTarget): Promise<CommandOutput> {
  const db = await openDatabase(target.url, { authToken: target.authToken });
  try {
    const version = await migrate(db, CLOUD_MIGRATIONS_TABLE, cloudMigrations);
    return { json: { ok: true, version }, text: `The cloud schema is at version ${version}.` };
  } finally {
    db.close();
  }
}

/**
 * Opens the cloud's storage for one command and closes it after.
 *
 * @param target The database.
 * @param run The command.
 * @returns What the command returned.
 */
export async function withStorage<T>(
  target: DatabaseTarget,
  run: (storage: CloudRepositories) => Promise<T>,
): Promise<T> {
  const storage = await openCloudStorage(target.url, { authToken: target.authToken });
  try {
    return await run(storage);
  } finally {
    await storage.close();
  }
}
