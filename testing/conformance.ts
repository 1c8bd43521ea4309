/**
 * `checkSvcConformance`: probes an app's own `/svc` routes through its `handle`
 * and checks the contract's answers, without running any intent's handler
 * unless the app opts in.
 *
 * @module
 */
import { runResponse } from "../core/app/routes/mod.ts";
import { agentManifestSchema } from "../core/contract/mod.ts";
import { errorEnvelopeSchema } from "../core/contract/mod.ts";
import { keyListSchema, mintedKeySchema, revokedKeySchema } from "../core/contract/mod.ts";
import { invalidPayloads } from "./invalid_payloads.ts";
import type { ConformanceCheck, ConformanceReport, IntentReport } from "./report.ts";

/** How the kit reaches the app and signs a user in. */
export interface ConformanceOptions {
  /** Signs a test user in: headers to add (such as a session cookie), or a function returning the signed-in request. */
  signIn: Record<string, string> | ((req: Request) => Request | Promise<Request>);
  /** Every scope the app supports (its `scopes` config). */
  scopes: readonly string[];
  /** Valid payloads of intents whose handlers may run in CI (side effects!), keyed by intent. Default none. */
  run?: Record<string, Record<string, unknown>>;
  /** The origin requests are made to. Default `http://localhost`. */
  baseUrl?: string;
}

/** A fetch handler, such as `svc.handle` or the app's whole handler. */
export type Handle = (req: Request) => Response | Promise<Response>;

interface Answer {
  status: number;
  type: string | null;
  text: string;
  body: unknown;
}

type Expect = (a: Answer) => string | undefined;

/**
 * Probes the app's `/svc` routes and each intent of its manifest.
 *
 * Keys are minted through the app's sign-in (all scopes; each intent's scopes
 * withheld) and revoked at the end. Each intent is called without a key, with a
 * revoked key, without its scopes, and with payloads its input schema rejects;
 * no probe carries a valid payload except those in `options.run`.
 *
 * @param handle The app's fetch handler.
 * @param options Sign-in, scopes, and intents allowed to run.
 * @returns The report: every check, by route and by intent.
 *
 * @example Check an app in its own test suite
 * ```ts
 * import { createSvc } from "@svc/agent-access";
 * import { assertConformance, checkSvcConformance } from "@svc/agent-access/testing";
 *
 * const app = createSvc({
 *   userResolver: (req) => req.headers.get("cookie") === "session=conformance" ? "conformance" : null,
 *   scopes: ["notes:read", "notes:write"],
 * });
 * const report = await checkSvcConformance(app.handle, {
 *   scopes: ["notes:read", "notes:write"],
 *   signIn: { cookie: "session=conformance" },
 * });
 * assertConformance(report);
 * ```
 */
export async function checkSvcConformance(handle: Handle, options: ConformanceOptions): Promise<ConformanceReport> {
  const base = options.baseUrl ?? "http://localhost";
  const secrets: string[] = [];
  const seen: string[] = []; // every answer but the mints', to look for leaked plaintext
  const minted: string[] = [];

  async function call(method: string, path: string, init: { user?: boolean; key?: string; body?: unknown } = {}) {
    const headers: Record<string, string> = {};
    if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const raw = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    let req = new Request(base + path, { method, headers, body: init.body === undefined ? undefined : raw });
    if (init.user) req = await signIn(req, options.signIn);
    const res = await handle(req);
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch { /* checked by the expectations */ }
    const answer = { status: res.status, type: res.headers.get("content-type"), text, body };
    if (!(method === "POST" && path === "/svc/keys")) seen.push(text);
    return answer;
  }

  async function check(name: string, probe: () => Promise<Answer>, expect: Expect): Promise<ConformanceCheck> {
    try {
      const detail = expect(await probe());
      return detail === undefined ? { name, passed: true } : { name, passed: false, detail };
    } catch (error) {
      return { name, passed: false, detail: `threw ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  async function mint(scopes: readonly string[]): Promise<{ id: string; key: string } | undefined> {
    const a = await call("POST", "/svc/keys", { user: true, body: { name: "conformance", scopes } });
    const parsed = mintedKeySchema.safeParse(a.body);
    if (a.status !== 201 || !parsed.success) return undefined;
    secrets.push(parsed.data.key);
    minted.push(parsed.data.id);
    return parsed.data;
  }

  const routes: ConformanceCheck[] = [];
  const intents: IntentReport[] = [];
  routes.push(
    await check(
      "POST /svc/keys signed out → 401 UNAUTHORIZED",
      () => call("POST", "/svc/keys", { body: { name: "x", scopes: [] } }),
      error(401, "UNAUTHORIZED"),
    ),
    await check(
      "POST /svc/keys with an unknown scope → 400 VALIDATION_ERROR",
      () => call("POST", "/svc/keys", { user: true, body: { name: "x", scopes: ["__conformance_unknown__"] } }),
      error(400, "VALIDATION_ERROR"),
    ),
  );
  const full = await mint(options.scopes);
  routes.push({
    name: "POST /svc/keys → 201 { id, name, scopes, agentId, key, createdAt }",
    passed: full !== undefined,
    detail: full ? undefined : "minting with every scope failed; no intent can be probed",
  });
  if (full === undefined) return { passed: false, routes, intents };
  const revoked = await mint([]);

  let manifest: { name: string; requiredScopes: string[]; input: Record<string, unknown>; allowed: boolean }[] = [];
  routes.push(
    await check(
      "GET /svc/keys signed out → 401 UNAUTHORIZED",
      () => call("GET", "/svc/keys"),
      error(401, "UNAUTHORIZED"),
    ),
    await check("GET /svc/keys lists the minted keys", () => call("GET", "/svc/keys", { user: true }), (a) => {
      const parsed = keyListSchema.safeParse(a.body);
      if (a.status !== 200 || !parsed.success) return `got ${describe(a)}`;
      const ids = new Set(parsed.data.keys.map((k) => k.id));
      return minted.every((id) => ids.has(id)) ? undefined : "a minted key is not listed";
    }),
    await check(
      "GET /svc/agent/intents without a key → 401 UNAUTHORIZED",
      () => call("GET", "/svc/agent/intents"),
      error(401, "UNAUTHORIZED"),
    ),
    await check(
      "GET /svc/agent/intents lists the manifest, all allowed to a key with every scope",
      () => call("GET", "/svc/agent/intents", { key: full.key }),
      (a) => {
        const parsed = agentManifestSchema.safeParse(a.body);
        if (a.status !== 200 || !parsed.success) return `got ${describe(a)}`;
        manifest = parsed.data.intents;
        const denied = manifest.filter((i) => !i.allowed).map((i) => i.name);
        return denied.length ? `not allowed: ${denied.join(", ")}` : undefined;
      },
    ),
    await check(
      "DELETE /svc/keys/:id of an unknown key → 404 NOT_FOUND",
      () => call("DELETE", `/svc/keys/${crypto.randomUUID()}`, { user: true }),
      error(404, "NOT_FOUND"),
    ),
    await check(
      "DELETE /svc/keys/:id → 200 { ok: true, id, revokedAt }",
      () => call("DELETE", `/svc/keys/${revoked?.id}`, { user: true }),
      (a) => a.status === 200 && revokedKeySchema.safeParse(a.body).success ? undefined : `got ${describe(a)}`,
    ),
    await check(
      "POST /svc/agent/run with a body that is not JSON → 400 INVALID_JSON",
      () => call("POST", "/svc/agent/run", { key: full.key, body: "{not json" }),
      error(400, "INVALID_JSON"),
    ),
  );

  const withheld = new Map<string, Promise<{ key: string } | undefined>>();
  for (const intent of manifest) {
    const bad = invalidPayloads(intent.input);
    const run = (key: string | undefined, payload: unknown) =>
      call("POST", "/svc/agent/run", { key, body: { intent: intent.name, payload } });
    // Refusals before the payload check carry an invalid payload, so a broken app still runs no handler.
    const checks = [
      await check("without a key → 401 UNAUTHORIZED", () => run(undefined, bad[0].payload), error(401, "UNAUTHORIZED")),
      await check(
        "with a revoked key → 401 UNAUTHORIZED",
        () =>
          revoked ? run(revoked.key, bad[0].payload) : Promise.reject(new Error("minting a key without scopes failed")),
        error(401, "UNAUTHORIZED"),
      ),
    ];
    if (intent.requiredScopes.length) {
      const others = options.scopes.filter((s) => !intent.requiredScopes.includes(s));
      const id = others.join(" ");
      if (!withheld.has(id)) withheld.set(id, mint(others));
      const key = (await withheld.get(id))?.key;
      checks.push(
        await check(
          "without its scopes → 403 FORBIDDEN_SCOPE listing them",
          () => run(key, bad[0].payload),
          error(403, "FORBIDDEN_SCOPE", (e) => {
            const missing = (e.details as { missingScopes?: unknown })?.missingScopes;
            const listed = Array.isArray(missing) && intent.requiredScopes.every((s) => missing.includes(s));
            return listed ? undefined : `details.missingScopes is ${JSON.stringify(missing)}`;
          }),
        ),
      );
    }
    for (const { label, payload } of bad) {
      checks.push(
        await check(
          `payload with ${label} → 400 INTENT_VALIDATION_ERROR with issues`,
          () => run(full.key, payload),
          error(400, "INTENT_VALIDATION_ERROR", (e) => {
            const issues = (e.details as { issues?: unknown })?.issues;
            return Array.isArray(issues) && issues.length > 0 ? undefined : "details.issues is missing or empty";
          }),
        ),
      );
    }
    const valid = options.run?.[intent.name];
    if (valid !== undefined) {
      checks.push(
        await check(
          "a valid payload → 200 { ok: true, intent, result }",
          () => run(full.key, valid),
          (a) => a.status === 200 && runResponse.safeParse(a.body).success ? undefined : `got ${describe(a)}`,
        ),
      );
    }
    intents.push({ intent: intent.name, passed: checks.every((c) => c.passed), checks });
  }

  const leaks = seen.filter((text) => secrets.some((s) => text.includes(s))).length;
  routes.push({
    name: "no answer but the mint's carries a plaintext key (GET /svc/keys included)",
    passed: leaks === 0,
    detail: leaks ? `${leaks} answers carry one` : undefined,
  });
  for (const id of minted) await call("DELETE", `/svc/keys/${id}`, { user: true }).catch(() => {});
  return { passed: routes.every((c) => c.passed) && intents.every((i) => i.passed), routes, intents };
}

function signIn(req: Request, how: ConformanceOptions["signIn"]): Request | Promise<Request> {
  if (typeof how === "function") return how(req);
  const headers = new Headers(req.headers);
  for (const [name, value] of Object.entries(how)) headers.set(name, value);
  return new Request(req, { headers });
}

/** Expects the error envelope with this status and code, and optionally more. */
function error(
  status: number,
  code: string,
  more?: (e: { code: string; details?: unknown }) => string | undefined,
): Expect {
  return (a) => {
    const envelope = errorEnvelopeSchema.safeParse(a.body);
    if (a.status !== status || !envelope.success || envelope.data.error.code !== code) return `got ${describe(a)}`;
    if (!/^application\/json\b/.test(a.type ?? "")) return `Content-Type is ${a.type}`;
    return more?.(envelope.data.error);
  };
}

function describe(a: Answer): string {
  return `${a.status} ${a.text.length > 200 ? `${a.text.slice(0, 200)}…` : a.text}`;
}
