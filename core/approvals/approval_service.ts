/**
 * Approvals: an agent's run of an intent that waits for its user's decision. The app keeps the approval and its
 * validated payload; the user approves (the handler runs once, here, with the stored payload) or denies; nobody
 * deciding in time expires it; revoking its key cancels it. Each step is told to `step` (the cloud's audit, in
 * hybrid and cloud modes), and each final one to `decided` (the agent's inbox).
 *
 * @module
 */
import { ulid } from "ulid";
import { APPROVAL_ID_PREFIX, type ApprovalStatus, type ApprovalStep } from "../contract/mod.ts";
import type { Executor } from "../db/mod.ts";
import { isSvcError, SvcError } from "../errors/mod.ts";
import { type CompiledIntent, PendingApproval } from "../intents/mod.ts";
import type { VerifiedKey } from "../keys/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { type ApprovalRow, approvalStore } from "./approval_store.ts";

/** The most approvals a key may have pending at once, unless `approvals.maxPendingPerKey` says otherwise. */
export const DEFAULT_MAX_PENDING_PER_KEY = 20;
/** The longest an agent's poll of an approval is held open, in seconds. */
export const MAX_APPROVAL_WAIT_SECONDS = 20;
/** How often a held poll reads the database again (another process may decide), in milliseconds. */
const RECHECK_MS = 1000;
/** How many ended approvals one delete removes. */
const PURGE_CHUNK = 500;
/** The most approvals one listing answers. */
const LIST_LIMIT = 200;

/** An approval as its user sees it (`GET /svc/approvals`, the decision page, `onApprovalRequested`). */
export interface Approval {
  /** `apr_` + ULID. */
  approvalId: string;
  /** The intent waiting. */
  intent: string;
  /** Its title. */
  title: string;
  /** The key that asked. */
  keyId: string;
  /** The key's name. */
  keyName: string;
  /** The validated payload the handler runs with, once approved. */
  payload: unknown;
  /** Where it stands. */
  status: ApprovalStatus;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  expiresAt: string;
  /** ISO 8601, `null` while pending. */
  decidedAt: string | null;
  /** A denial's reason, `null` when none. */
  reason: string | null;
}

/** An approval as its agent sees it (`GET /svc/agent/approvals/:id`). */
export interface AgentApproval {
  /** `apr_` + ULID. */
  approvalId: string;
  /** Where it stands. */
  status: ApprovalStatus;
  /** The handler's result, once approved and run. */
  result?: unknown;
  /** How the handler failed, once approved and run. */
  error?: { code: string; message: string };
  /** A denial's reason. */
  reason?: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** What {@linkcode createApprovals} needs. */
export interface ApprovalOptions {
  /** The app's database, migrated. */
  db: Executor;
  /** The clock, in milliseconds since the epoch. */
  now: () => number;
  /** Runs an approved intent's handler with the stored payload, for its user. */
  run: (intent: string, payload: unknown, user: string) => Promise<unknown>;
  /** The most pending per key (default 20). */
  maxPendingPerKey?: number;
  /** The app's own decision page: `{id}` in it is the approval's id, else `?approvalId=` is appended. */
  pageUrl?: string;
  /** Tells the app an approval waits for its user (to notify them); a failure is logged. */
  onApprovalRequested?: (approval: Approval & { decideUrl: string }) => void | Promise<void>;
  /** Every step of every approval (the cloud's audit through the outbox, in hybrid and cloud modes). */
  step: (step: ApprovalStep) => void;
  /** An approval that became final, for the agent's inbox (hybrid and cloud modes); absent in local mode. */
  decided?: (step: ApprovalStep) => void;
  /**
   * Told of the run on approval once it ended: the approval, the status its answer has (200, or the failure's) and
   * the failure's code (the activity record of the run, outcome `ok` or `failed`, with `approvalId`).
   */
  ran?: (row: ApprovalRow, outcome: { status: number; code?: string; ms: number }) => void;
  /** Where failures are logged. */
  log: ErrorLogger;
}

/** The approvals of an app. */
export interface Approvals {
  /** Stores a run waiting for its user; `APPROVAL_PENDING_LIMIT` when its key has too many waiting. */
  request(key: VerifiedKey, intent: CompiledIntent, payload: unknown): Promise<PendingApproval>;
  /** The user's approvals, newest first, of one status or all. */
  list(userId: string, status?: ApprovalStatus): Promise<Approval[]>;
  /** One of the user's approvals; `NOT_FOUND` when unknown or another user's. */
  get(userId: string, id: string): Promise<Approval>;
  /** Approves and runs the handler once: its result; `ALREADY_DECIDED` when no longer pending. */
  approve(userId: string, id: string): Promise<unknown>;
  /** Denies; `ALREADY_DECIDED` when no longer pending. */
  deny(userId: string, id: string, reason?: string): Promise<void>;
  /** The outcome for the key that asked, waiting up to `waitSeconds` for it to change from pending. */
  forAgent(key: VerifiedKey, id: string, waitSeconds: number, signal?: AbortSignal): Promise<AgentApproval>;
  /** Cancels the pending approvals of revoked keys. */
  cancelForKeys(keyIds: readonly string[]): Promise<void>;
  /** Where the user decides on an approval. */
  decideUrl(id: string): string;
  /**
   * Expires what nobody decided in time (each told as a step), and deletes the approvals that ended and expired more
   * than `retentionMs` ago, in short chunks.
   */
  purge(retentionMs: number): Promise<void>;
}

/**
 * Builds the approvals of an app on its database.
 *
 * @param options The database, the clock, the handler's runner and where steps go.
 * @returns The approvals.
 */
export function createApprovals(options: ApprovalOptions): Approvals {
  const store = approvalStore(options.db);
  const { now, log } = options;
  const max = options.maxPendingPerKey ?? DEFAULT_MAX_PENDING_PER_KEY;
  /** Held polls waiting for an approval of this process to change, by approval id. */
  const waiters = new Map<string, Set<() => void>>();
  const iso = () => new Date(now()).toISOString();

  function changed(row: ApprovalRow): void {
    const step = stepOf(row);
    options.step(step);
    if (row.status !== "pending" && (row.status !== "approved" || row.result !== null || row.error !== null)) {
      options.decided?.(step);
    }
    for (const wake of waiters.get(row.id) ?? []) wake();
  }

  function decideUrl(id: string): string {
    const page = options.pageUrl;
    if (page === undefined) return `/svc/approvals/${id}`;
    if (page.includes("{id}")) return page.replaceAll("{id}", encodeURIComponent(id));
    return `${page}${page.includes("?") ? "&" : "?"}approvalId=${encodeURIComponent(id)}`;
  }

  /** The approval after ending it if it is due (expired, or its key revoked). */
  async function current(id: string): Promise<ApprovalRow | null> {
    const ended = await store.endDue(iso(), { id });
    ended.forEach(changed);
    return ended[0] ?? await store.find(id);
  }

  async function mine(userId: string, id: string): Promise<ApprovalRow> {
    const row = await current(id);
    if (row === null || row.userId !== userId) throw new SvcError("NOT_FOUND", "No such approval");
    return row;
  }

  async function decided(userId: string, id: string, status: "approved" | "denied", reason: string | null) {
    const before = await mine(userId, id);
    const row = await store.decide(id, userId, status, iso(), reason);
    if (row === null) {
      const after = (await store.find(id)) ?? before;
      throw new SvcError("ALREADY_DECIDED", `This approval is already ${after.status}`, {
        details: { status: after.status },
      });
    }
    return row;
  }

  return {
    async request(key, intent, payload) {
      const at = now();
      const row: ApprovalRow = {
        id: APPROVAL_ID_PREFIX + ulid(at),
        keyId: key.id,
        keyName: key.name,
        userId: key.userId,
        agentId: key.agentId ?? null,
        intent: intent.name,
        title: intent.manifest.title,
        payload: JSON.stringify(payload ?? {}),
        status: "pending",
        createdAt: new Date(at).toISOString(),
        expiresAt: new Date(at + intent.approvalTtlMinutes * 60_000).toISOString(),
        decidedAt: null,
        reason: null,
        result: null,
        error: null,
      };
      if (!await store.insert(row, max, row.createdAt)) {
        throw new SvcError(
          "APPROVAL_PENDING_LIMIT",
          `This key has ${max} approvals waiting for its user: wait for a decision before asking for more`,
          { details: { maxPending: max } },
        );
      }
      changed(row);
      const url = decideUrl(row.id);
      if (options.onApprovalRequested) {
        const notify = options.onApprovalRequested;
        Promise.resolve().then(() => notify({ ...toApproval(row), decideUrl: url }))
          .catch((e) => log("onApprovalRequested failed", e));
      }
      return new PendingApproval(row.id, row.expiresAt, url);
    },
    async list(userId, status) {
      (await store.endDue(iso(), { userId })).forEach(changed);
      return (await store.list(userId, status, LIST_LIMIT)).map(toApproval);
    },
    async get(userId, id) {
      return toApproval(await mine(userId, id));
    },
    async approve(userId, id) {
      const row = await decided(userId, id, "approved", null);
      changed(row);
      const started = now();
      try {
        const result = (await options.run(row.intent, JSON.parse(row.payload), userId)) ?? null;
        options.ran?.(row, { status: 200, ms: now() - started });
        const ran = { ...row, result: JSON.stringify(result) };
        await store.saveOutcome(id, { result: ran.result });
        finished(ran);
        return result;
      } catch (error) {
        const failure = isSvcError(error)
          ? { code: error.code, message: error.message }
          : { code: "INTENT_FAILED", message: "The intent failed" };
        options.ran?.(row, { status: isSvcError(error) ? error.status : 500, code: failure.code, ms: now() - started });
        const failed = { ...row, error: JSON.stringify(failure) };
        await store.saveOutcome(id, { error: failed.error }).catch((e) => log("approval outcome not saved", e));
        finished(failed);
        throw error;
      }
    },
    async deny(userId, id, reason) {
      changed(await decided(userId, id, "denied", reason ?? null));
    },
    async forAgent(key, id, waitSeconds, signal) {
      const seconds = Math.max(0, Math.min(waitSeconds, MAX_APPROVAL_WAIT_SECONDS));
      // Listening before the first read: a decision made meanwhile in this process is never missed.
      let woken = false;
      let over = false;
      let resume: (() => void) | undefined;
      const wake = () => {
        woken = true;
        resume?.();
      };
      const end = () => {
        over = true;
        resume?.();
      };
      const set = waiters.get(id) ?? new Set();
      set.add(wake);
      waiters.set(id, set);
      const timer = seconds > 0 ? setTimeout(end, seconds * 1000) : undefined;
      signal?.addEventListener("abort", end);
      try {
        let row = await current(id);
        if (row === null || row.keyId !== key.id) throw new SvcError("NOT_FOUND", "No such approval");
        while (seconds > 0 && !over && !settled(row)) {
          if (!woken) {
            // Another process may decide: the database is read again every second.
            await new Promise<void>((resolve) => {
              const tick = setTimeout(resolve, RECHECK_MS);
              resume = () => {
                clearTimeout(tick);
                resolve();
              };
            });
          }
          woken = false;
          row = (await current(id)) ?? row;
        }
        return toAgent(row);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", end);
        set.delete(wake);
        if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
      }
    },
    async cancelForKeys(keyIds) {
      (await store.cancelForKeys(keyIds, iso())).forEach(changed);
    },
    decideUrl,
    async purge(retentionMs) {
      (await store.expireDue(iso())).forEach(changed);
      const before = new Date(now() - retentionMs).toISOString();
      while (await store.purge(before, PURGE_CHUNK) === PURGE_CHUNK);
    },
  };

  /** An approved run that finished: the agent's waits end and its inbox hears of it. */
  function finished(row: ApprovalRow): void {
    options.decided?.(stepOf(row));
    for (const wake of waiters.get(row.id) ?? []) wake();
  }
}

/** Whether an agent's poll has nothing more to wait for: final, and an approved run has finished. */
function settled(row: ApprovalRow): boolean {
  if (row.status === "pending") return false;
  return row.status !== "approved" || row.result !== null || row.error !== null;
}

function toApproval(row: ApprovalRow): Approval {
  return {
    approvalId: row.id,
    intent: row.intent,
    title: row.title,
    keyId: row.keyId,
    keyName: row.keyName,
    payload: JSON.parse(row.payload),
    status: row.status,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    decidedAt: row.decidedAt,
    reason: row.reason,
  };
}

function toAgent(row: ApprovalRow): AgentApproval {
  return {
    approvalId: row.id,
    status: row.status,
    ...row.result !== null ? { result: JSON.parse(row.result) } : {},
    ...row.error !== null ? { error: JSON.parse(row.error) } : {},
    ...row.status === "denied" && row.reason !== null ? { reason: row.reason } : {},
    expiresAt: row.expiresAt,
  };
}

/** The step the app tells the cloud: no payload, no result. */
function stepOf(row: ApprovalRow): ApprovalStep {
  return {
    approvalId: row.id,
    intent: row.intent,
    keyId: row.keyId,
    userId: row.userId,
    agentId: row.agentId,
    status: row.status,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    decidedAt: row.decidedAt,
    ...row.reason !== null ? { reason: row.reason } : {},
  };
}
