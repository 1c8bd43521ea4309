// The credential cases of the auth matrix: for each route kind (a project's
// SDK auth, an agent key, an app's signed-in user), the headers each case sends
// and whether it must be accepted.
import { AGENT_KEY_PREFIX, mintSecret, SDK_SECRET_PREFIX } from "../../core/secrets.ts";

/** Every credential the matrix needs, minted for real. */
export interface Credentials {
  /** The project the routes are called for, with its current secret. */
  projectId: string;
  sdkSecret: string;
  /** The project's secret before it was rotated. */
  rotatedSecret: string;
  /** Another project's secret. */
  otherSecret: string;
  /** An active agent key of the project, its revoked key, and an active key of another project. */
  agentKey: string;
  revokedKey: string;
  otherProjectKey: string;
  /** Whether `otherProjectKey` is a valid key here (the cloud knows every project's keys; an app only its own). */
  otherProjectKeyIsValid: boolean;
}

/** Who a route wants: `sdk` and `agent` on /v1, `user` and `agent` on /svc. */
export type RouteAuth = "sdk" | "agent" | "user" | "none";

/** What the case must get: refused with 401, or the route's success. */
export type Outcome = "refused" | "accepted";

export interface CredentialCase {
  name: string;
  /** The headers for a route of this kind, and the expected outcome. */
  send(auth: RouteAuth, c: Credentials): { headers: Record<string, string>; expect: Outcome };
}

const refused = (headers: Record<string, string>) => ({ headers, expect: "refused" as const });

function outcome(accepted: boolean): Outcome {
  return accepted ? "accepted" : "refused";
}

/** The token a case presents: the route's own kind of credential. */
function own(auth: RouteAuth, c: Credentials): string {
  return auth === "sdk" ? c.sdkSecret : c.agentKey;
}

/** SDK routes also need the project header; agent and user routes get it too, harmlessly. */
function project(c: Credentials): Record<string, string> {
  return { "x-svc-project": c.projectId };
}

/** A signed-in user of the app (only user routes look at it). */
export const SIGNED_IN = { "x-user": "alice" };

const CASES: readonly CredentialCase[] = [
  { name: "no credential", send: (_, c) => refused(project(c)) },
  { name: "an empty Authorization header", send: (_, c) => refused({ ...project(c), authorization: "" }) },
  { name: "Bearer alone", send: (_, c) => refused({ ...project(c), authorization: "Bearer" }) },
  { name: "no Bearer word", send: (a, c) => refused({ ...project(c), authorization: own(a, c) }) },
  { name: "extra spaces", send: (a, c) => refused({ ...project(c), authorization: `Bearer   ${own(a, c)}` }) },
  {
    name: "a wrong prefix",
    send: (a, c) => refused({ ...project(c), authorization: `Bearer sk_live_${own(a, c).split("_").pop()}` }),
  },
  {
    name: "a well-formed but unknown credential",
    send: (a, c) =>
      refused({
        ...project(c),
        authorization: `Bearer ${mintSecret(a === "sdk" ? SDK_SECRET_PREFIX : AGENT_KEY_PREFIX)}`,
      }),
  },
  {
    name: "a revoked credential",
    send: (a, c) => refused({ ...project(c), authorization: `Bearer ${a === "sdk" ? c.rotatedSecret : c.revokedKey}` }),
  },
  {
    name: "the wrong kind of credential",
    send: (a, c) => refused({ ...project(c), authorization: `Bearer ${a === "sdk" ? c.agentKey : c.sdkSecret}` }),
  },
  {
    name: "another project's credential",
    // On agent routes a key of another project is a valid key: it is accepted and sees only its own
    // project's data (tests/security/object_level_authorization_test.ts).
    send: (a, c) =>
      a === "agent"
        ? { headers: { authorization: `Bearer ${c.otherProjectKey}` }, expect: outcome(c.otherProjectKeyIsValid) }
        : refused({ ...project(c), authorization: `Bearer ${a === "sdk" ? c.otherSecret : c.otherProjectKey}` }),
  },
  {
    name: "a rotated-away secret",
    // Rotating the sdkSecret does not touch agent keys: the agent key of the rotated project still works.
    send: (a, c) =>
      a === "agent"
        ? { headers: { ...project(c), authorization: `Bearer ${c.agentKey}` }, expect: "accepted" }
        : refused({ ...project(c), authorization: `Bearer ${c.rotatedSecret}` }),
  },
  { name: "a project id without its secret", send: (_, c) => refused(project(c)) },
  {
    name: "a valid credential",
    send: (a, c) =>
      a === "user"
        ? { headers: SIGNED_IN, expect: "accepted" }
        : { headers: { ...project(c), authorization: `Bearer ${own(a, c)}` }, expect: "accepted" },
  },
  {
    name: "an agent key in place of a session",
    send: (a, c) =>
      a === "user"
        ? refused({ authorization: `Bearer ${c.agentKey}` })
        : { headers: { authorization: `Bearer ${c.agentKey}` }, expect: a === "agent" ? "accepted" : "refused" },
  },
];

/** Every case; a public route (`none`) accepts whatever credential comes with the request. */
export const CREDENTIAL_CASES: readonly CredentialCase[] = CASES.map((c) => ({
  name: c.name,
  send: (a, creds) => a === "none" ? { headers: c.send("agent", creds).headers, expect: "accepted" } : c.send(a, creds),
}));
