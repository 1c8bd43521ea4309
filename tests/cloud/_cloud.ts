// Test helpers for the cloud: a cloud on a real in-memory (or given) libSQL
// database with one project, and a small client for its routes.
import { type Client, createClient } from "@libsql/client";
import { type Cloud, type CloudOptions, createCloud } from "../../cloud/mod.ts";
import { openCloudStorage } from "../../cloud/libsql_storage.ts";
import { createProject } from "../../cloud/projects.ts";
import type { CloudStorage } from "../../cloud/storage.ts";

export interface Project {
  id: string;
  secret: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface TestCloud {
  cloud: Cloud;
  storage: CloudStorage;
  client: Client;
  project: Project;
  newProject(name?: string): Promise<Project>;
  /** Calls a route with the project's SDK auth (or another project's). */
  sdk(method: string, path: string, options?: CallOptions & { as?: Project }): Promise<Answer>;
  /** Calls a route with an agent key. */
  agent(key: string, method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Calls a route with exactly the given headers. */
  raw(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Mints a key through the cloud; returns the plaintext and its record. */
  mintKey(
    userId: string,
    extra?: Record<string, unknown>,
    as?: Project,
  ): Promise<{ key: string; id: string; agentId: string }>;
  close(): Promise<void>;
}

export async function startTestCloud(options: Partial<CloudOptions> & { url?: string } = {}): Promise<TestCloud> {
  const client = createClient({ url: options.url ?? ":memory:" });
  const storage = await openCloudStorage(client);
  const cloud = createCloud({ recheckMs: 50, ...options, db: client });
  await cloud.ready;
  const newProject = async (name = "Test") => {
    const { project, sdkSecret } = await createProject(storage, name);
    return { id: project.id, secret: sdkSecret };
  };
  const project = await newProject();
  const raw = (method: string, path: string, o: CallOptions = {}) => call(cloud, method, path, o);
  const sdk = (method: string, path: string, o: CallOptions & { as?: Project } = {}) => {
    const p = o.as ?? project;
    return raw(method, path, {
      ...o,
      headers: { authorization: `Bearer ${p.secret}`, "x-svc-project": p.id, ...o.headers },
    });
  };
  return {
    cloud,
    storage,
    client,
    project,
    newProject,
    sdk,
    raw,
    agent: (key, method, path, o = {}) =>
      raw(method, path, { ...o, headers: { authorization: `Bearer ${key}`, ...o.headers } }),
    async mintKey(userId, extra = {}, as) {
      const res = await sdk("POST", "/v1/sdk/keys", { body: { userId, name: "k", scopes: [], ...extra }, as });
      if (res.status !== 201) throw new Error(`mint failed: ${JSON.stringify(res.body)}`);
      return { key: res.body.key, id: res.body.id, agentId: res.body.agentId };
    },
    async close() {
      await cloud.close();
      client.close();
    },
  };
}

export async function call(cloud: Cloud, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await cloud.handle(
    new Request(`http://cloud.test${path}`, {
      method,
      headers,
      body: o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body),
      signal: o.signal,
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export function violation(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiKeyId: crypto.randomUUID(), kind: "FORBIDDEN_SCOPE", severity: "warning", ...extra };
}

export function event(eventId: string, agentId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { eventId, type: "order.paid", agentId, payload: { n: eventId }, ...extra };
}
