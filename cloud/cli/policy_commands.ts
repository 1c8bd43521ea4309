/**
 * `project policy PROJECT_ID …` (a project's auto-revoke policy and retention)
 * and `audit list` (the audit log), on the cloud's database.
 *
 * @module
 */
import { autoRevokePolicySchema } from "../../core/contract/mod.ts";
import { timestampInput } from "../../core/contract/mod.ts";
import { CLI_ACTOR, createAuditService } from "../audit/mod.ts";
import { createProjectService } from "../projects/mod.ts";
import { type PolicyChange, policyChangeSchema, type PolicyView, readPolicy, updatePolicy } from "../violations/mod.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { CommandError, type CommandOutput, withStorage } from "./project_commands.ts";
import type { CommandLine } from "./usage.ts";
import { printable } from "./terminal_text.ts";

/**
 * Shows a project's policy, or changes it with `--auto-revoke-threshold N
 * --auto-revoke-window MINUTES`, `--auto-revoke off` and `--retention-days N|default`.
 *
 * @param target The database.
 * @param projectId The project.
 * @param line The parsed command line.
 * @returns What to print.
 */
export async function runPolicyCommand(
  target: DatabaseTarget,
  projectId: string | undefined,
  line: CommandLine,
): Promise<CommandOutput> {
  if (!projectId) throw new CommandError("USAGE", "project policy needs PROJECT_ID");
  const change = policyChange(line);
  return await withStorage(target, async (storage) => {
    const policy = Object.keys(change).length
      ? await updatePolicy(storage, projectId, change, CLI_ACTOR)
      : await createProjectService(storage).find(projectId) && await readPolicy(storage, projectId);
    if (!policy) throw new CommandError("NOT_FOUND", `No project ${projectId}`);
    return { json: { projectId, ...policy }, text: describePolicy(projectId, policy) };
  });
}

function policyChange(line: CommandLine): PolicyChange {
  const change: Record<string, unknown> = {};
  const { autoRevokeThreshold, autoRevokeWindow } = line;
  if (line.autoRevoke !== undefined) {
    if (line.autoRevoke !== "off") throw new CommandError("USAGE", "--auto-revoke only takes off");
    change.autoRevoke = null;
  }
  if (autoRevokeThreshold !== undefined || autoRevokeWindow !== undefined) {
    if (change.autoRevoke === null) throw new CommandError("USAGE", "--auto-revoke off takes no threshold");
    if (autoRevokeThreshold === undefined || autoRevokeWindow === undefined) {
      throw new CommandError("USAGE", "--auto-revoke-threshold and --auto-revoke-window go together");
    }
    const parsed = autoRevokePolicySchema.safeParse({
      threshold: Number(autoRevokeThreshold),
      windowMinutes: Number(autoRevokeWindow),
    });
    if (!parsed.success) {
      throw new CommandError("USAGE", "--auto-revoke-threshold and --auto-revoke-window must be positive integers");
    }
    change.autoRevoke = parsed.data;
  }
  if (line.retentionDays !== undefined) {
    change.retentionDays = line.retentionDays === "default" ? null : Number(line.retentionDays);
  }
  const checked = policyChangeSchema.safeParse(change);
  if (!checked.success) throw new CommandError("USAGE", "--retention-days must be 1..3650 or default");
  return checked.data;
}

function describePolicy(projectId: string, policy: PolicyView): string {
  const auto = policy.autoRevoke;
  const autoText = auto === null
    ? "off"
    : `revoke a key at ${auto.threshold} counted violations within ${auto.windowMinutes} minutes`;
  const retention = policy.retentionDays === null ? "the server's default" : `${policy.retentionDays} days`;
  return `Policy of ${projectId}\n  auto-revoke: ${autoText}\n  retention of acknowledged items: ${retention}`;
}

/**
 * Lists the audit log, newest first, optionally of one project, one action, since a time.
 *
 * @param target The database.
 * @param line The parsed command line (`--project`, `--action`, `--since`, `--limit`).
 * @returns What to print.
 */
export async function runAuditList(target: DatabaseTarget, line: CommandLine): Promise<CommandOutput> {
  const limit = line.limit === undefined ? 50 : Number(line.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CommandError("USAGE", "--limit must be 1..1000");
  const since = line.since === undefined ? undefined : timestampInput.safeParse(line.since);
  if (since && !since.success) throw new CommandError("USAGE", "--since must be an ISO 8601 time");
  return await withStorage(target, async (storage) => {
    const page = await createAuditService(storage).list({
      projectId: line.project,
      action: line.action,
      since: since?.data,
      limit,
      offset: 0,
    });
    const lines = page.entries.map((e) =>
      printable(`${e.createdAt}  ${e.actor}  ${e.action}  ${e.target ?? "-"}  ${JSON.stringify(e.detail)}`)
    );
    return {
      json: { entries: page.entries, total: page.total },
      text: lines.length ? lines.join("\n") : "No entries.",
    };
  });
}
