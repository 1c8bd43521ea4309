/**
 * Turning a matched request into a handler's input: authentication first,
 * then the path, query and body, each through its route's zod schema.
 *
 * @module
 */
import type { z } from "zod";
import { SvcError } from "../core/contract/errors.ts";
import { readJson } from "../core/http/json.ts";
import { toIssues } from "../core/http/validation.ts";
import { authenticateAgent, authenticateSdk } from "./auth.ts";
import type { CloudRoute } from "./routes.ts";
import type { CloudStorage } from "./storage/cloud_storage.ts";

/** A handler input before it is narrowed to one route. */
export interface AnyRouteInput {
  /** The request. */
  req: Request;
  /** The authenticated caller, `null` for routes without auth. */
  caller: unknown;
  /** The validated body, if the route takes one. */
  body: unknown;
  /** The validated query, if the route reads one. */
  query: unknown;
  /** The validated path parameters, if any. */
  params: unknown;
}

/**
 * Authenticates and validates a request for its route.
 *
 * @param route The matched route.
 * @param req The request.
 * @param params The raw path parameters.
 * @param storage The cloud's storage, for the credentials.
 * @param bodyLimit The largest body accepted, in bytes.
 * @param limitWrites Throws `RATE_LIMITED` when the caller's project is over its write rate.
 * @returns The handler input.
 * @throws {SvcError} `UNAUTHORIZED`, `RATE_LIMITED`, `INVALID_JSON`, `PAYLOAD_TOO_LARGE` or `VALIDATION_ERROR`.
 */
export async function readRouteInput(
  route: CloudRoute,
  req: Request,
  params: Record<string, string>,
  storage: CloudStorage,
  bodyLimit: number,
  limitWrites?: (projectId: string) => void,
): Promise<AnyRouteInput> {
  const caller = route.auth === "sdk"
    ? await authenticateSdk(req, storage)
    : route.auth === "agent"
    ? await authenticateAgent(req, storage)
    : null;
  // Before the body is read, so a refusal costs no more than the credential check.
  if (route.write && caller !== null && limitWrites) limitWrites(caller.projectId);
  return {
    req,
    caller,
    params: route.params ? validate(route.params, params) : undefined,
    query: route.query ? validate(route.query, Object.fromEntries(new URL(req.url).searchParams)) : undefined,
    body: route.body ? validate(route.body, await readJson(req, bodyLimit)) : undefined,
  };
}

function validate(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new SvcError("VALIDATION_ERROR", "Invalid request", {
    details: { issues: toIssues(closestIssues(result.error.issues)) },
  });
}

/** For a value that matches no branch of a union, the issues of the branch it came closest to, at full paths. */
function closestIssues(issues: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
    const branch = issue.errors.reduce((best, errors) => distance(errors) < distance(best) ? errors : best);
    return closestIssues(branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
  });
}

/** How far a value is from a union branch: missing fields count most, then other issues. */
function distance(issues: z.core.$ZodIssue[]): number {
  const missing = issues.filter((i) => i.code === "invalid_type" && /received undefined$/.test(i.message)).length;
  return missing * 1000 + issues.length;
}
