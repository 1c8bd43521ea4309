/**
 * `project policy PROJECT_ID …` (a project's auto-revoke policy, retention and key lifetimes)
 * and `audit list` (the audit log), on the cloud's database.
 *
 * @module
 */
import { autoRevokePolicySchema } from "../../core/contract/mod.ts";
import { timestampInput } from "../../core/contract/mod.ts";
import { CLI_ACTOR, createAuditService } from "../audit/mod.ts";
import { createProjectService } from "../projects/mod.ts";
import {
  autoRevokeInWords,
  keyLifetimeInWords,
  type PolicyChange,
  policyChangeSchema,
  type PolicyView,
  quantity,
  readPolicy,
  updatePolicy,
} from "../violations/mod.ts";
import type { DatabaseTarget } from "./database_url.ts";
import { CommandError, type CommandOutput, withStorage } from "./project_commands.ts";
import type { CommandLine } from "./usage.ts";
import { printable } from "./terminal_text.ts";

/**
 * Shows a project's policy, or changes what its flags name and keeps the rest (the kinds and severities an
 * operator chose in the dashboard, the retention, the key lifetimes): `--auto-revoke-threshold N`,
 * `--auto-revoke-window MINUTES` (both for a new policy, either to change one), `--auto-revoke off`,
 * `--retention-days N|default`, `--key-lifetime-default DAYS|none`, `--key-lifetime-max DAYS|none` and
 * `--key-lifetime off`.
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
  checkFlags(line);
  return await withStorage(target, async (storage) => {
    const current = await createProjectService(storage).find(projectId) && await readPolicy(storage, projectId);
    if (!current) throw new CommandError("NOT_FOUND", `No project ${projectId}`);
    const change = policyChange(line, current);
    const policy = Object.keys(change).length ? await updatePolicy(storage, projectId, change, CLI_ACTOR) : current;
    if (!policy) throw new CommandError("NOT_FOUND", `No project ${projectId}`);
    return { json: { projectId, ...policy }, text: describePolicy(projectId, policy) };
  });
}

/** Refuses flags that contradict each other, before the database is opened. */
function checkFlags(line: CommandLine): void {
  if (line.autoRevoke !== undefined && line.autoRevoke !== "off") {
    throw new CommandError("USAGE", "--auto-revoke only takes off");
  }
  if (line.autoRevoke === "off" && (line.autoRevokeThreshold !== undefined || line.autoRevokeWindow !== undefined)) {
    throw new CommandError("USAGE", "--auto-revoke off takes no threshold");
  }
  if (line.keyLifetime !== undefined && line.keyLifetime !== "off") {
    throw new CommandError("USAGE", "--key-lifetime only takes off");
  }
  if (line.keyLifetime === "off" && (line.keyLifetimeDefault !== undefined || line.keyLifetimeMax !== undefined)) {
    throw new CommandError("USAGE", "--key-lifetime off takes no default or maximum");
  }
}

/** The change the flags ask for, merged into the current policy's parts they touch. */
function policyChange(line: CommandLine, current: PolicyView): PolicyChange {
  const change: Record<string, unknown> = {};
  const { autoRevokeThreshold, autoRevokeWindow } = line;
  if (line.autoRevoke === "off") change.autoRevoke = null;
  if (autoRevokeThreshold !== undefined || autoRevokeWindow !== undefined) {
    const kept = current.autoRevoke;
    if (kept === null && (autoRevokeThreshold === undefined || autoRevokeWindow === undefined)) {
      throw new CommandError("USAGE", "--auto-revoke-threshold and --auto-revoke-window go together");
    }
    const parsed = autoRevokePolicySchema.safeParse({
      ...kept,
      ...autoRevokeThreshold === undefined ? {} : { threshold: Number(autoRevokeThreshold) },
      ...autoRevokeWindow === undefined ? {} : { windowMinutes: Number(autoRevokeWindow) },
    });
    if (!parsed.success) {
      throw new CommandError("USAGE", "--auto-revoke-threshold and --auto-revoke-window must be positive integers");
    }
    change.autoRevoke = parsed.data;
  }
  if (line.retentionDays !== undefined) {
    change.retentionDays = line.retentionDays === "default" ? null : Number(line.retentionDays);
  }
  if (line.keyLifetime === "off") change.keyLifetime = null;
  if (line.keyLifetimeDefault !== undefined || line.keyLifetimeMax !== undefined) {
    const days = (flag: string | undefined, kept: number | null | undefined) =>
      flag === undefined ? kept ?? null : flag === "none" ? null : Number(flag);
    const defaultDays = days(line.keyLifetimeDefault, current.keyLifetime?.defaultDays);
    const maxDays = days(line.keyLifetimeMax, current.keyLifetime?.maxDays);
    change.keyLifetime = defaultDays === null && maxDays === null ? null : { defaultDays, maxDays };
  }
  const checked = policyChangeSchema.safeParse(change);
  if (!checked.success) {
    const path = String(checked.error.issues[0]?.path[0] ?? "");
    throw new CommandError(
      "USAGE",
      path === "keyLifetime"
        ? "--key-lifetime-default and --key-lifetime-max must be 1..3650 days or none, the default within the maximum"
        : "--retention-days must be 1..3650 or default",
    );
  }
  return checked.data;
}

function describePolicy(projectId: string, policy: PolicyView): string {
  const retention = policy.retentionDays === null ? "the server's default" : quantity(policy.retentionDays, "day");
  const lifetime = keyLifetimeInWords(policy.keyLifetime);
  return `Policy of ${projectId}\n  auto-revoke: ${autoRevokeInWords(policy.autoRevoke)}` +
    `\n  retention of acknowledged items: ${retention}\n  key lifetime: ${lifetime}`;
}

/**
 * Lists the audit log, newest first, optionally of one project, one action, one key, since a time.
 *
 * @param target The database.
 * @param line The parsed command line (`--project`, `--action`, `--key`, `--since`, `--limit`).
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
      keyId: line.key,
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
