/**
 * `keys revoke --user USER --project PROJECT_ID`: revokes every active key of a user of a project on the
 * cloud's database, in one transaction (a feed row and an audit entry per key, one for the action). Apps
 * following the revocation feed hear of it at their next poll; a cloud serving the same database refuses the
 * keys at once.
 *
 * @module
 */
import { CLI_ACTOR } from "../audit/mod.ts";
import { createInboxWaiters } from "../feed/mod.ts";
import { createKeyService } from "../keys/mod.ts";
import { createProjectService } from "../projects/mod.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { CommandError, type CommandOutput, withStorage } from "./project_commands.ts";
import { printable } from "./terminal_text.ts";
import type { CommandLine } from "./usage.ts";

/**
 * Runs `keys SUBCOMMAND`: only `revoke --user USER --project PROJECT_ID` for now.
 *
 * @param target The database.
 * @param words The words after `keys`.
 * @param line The parsed command line (`--user`, `--project`).
 * @returns What to print: `{ ok, projectId, userId, revoked, keyIds }`.
 * @throws {CommandError} `USAGE` without the options, `NOT_FOUND` for an unknown project.
 */
export async function runKeysCommand(
  target: DatabaseTarget,
  words: string[],
  line: CommandLine,
): Promise<CommandOutput> {
  if (words[0] !== "revoke" || words.length > 1) {
    throw new CommandError("USAGE", "keys takes: revoke --user USER --project PROJECT_ID");
  }
  const userId = line.user; // exactly as given: "bob " is another user than "bob"
  const projectId = line.project?.trim();
  if (!userId || !projectId) throw new CommandError("USAGE", "keys revoke needs --user USER and --project PROJECT_ID");
  return await withStorage(target, async (storage) => {
    if (!await createProjectService(storage).find(projectId)) {
      throw new CommandError("NOT_FOUND", `No project ${projectId}`);
    }
    const keys = createKeyService(storage, createInboxWaiters());
    const keyIds = await keys.revokeAllOfUser(projectId, userId, "tooling", CLI_ACTOR);
    const n = keyIds.length;
    return {
      json: { ok: true, projectId, userId, revoked: n, keyIds },
      text: printable(
        n === 0
          ? `${userId} has no active key in ${projectId}; nothing revoked.`
          : `Revoked ${n} ${n === 1 ? "key" : "keys"} of ${userId} in ${projectId}.`,
      ),
    };
  });
}
