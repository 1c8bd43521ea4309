// The cloud as real processes of the command line on one database file: a
// project created through `project create --json`, servers started with
// `serve`, and small HTTP helpers that never throw (a dead server answers 0).
import type { ChildProcess } from "node:child_process";
import { cliCommand, type Finished, repoRoot, run, serve } from "./_subprocess.ts";

export interface CloudProcess {
  url: string;
  child: ChildProcess;
  done: Promise<Finished>;
}

export interface ProcessProject {
  projectId: string;
  sdkSecret: string;
}

/** Creates a project in the database through the command line. */
export async function createProjectCli(db: string): Promise<ProcessProject> {
  const { code, stdout, stderr } = await run([
    ...cliCommand(),
    "project",
    "create",
    "--name",
    "p",
    "--json",
    "--db",
    db,
  ], repoRoot);
  if (code !== 0) throw new Error(`project create failed: ${stderr}`);
  return JSON.parse(stdout);
}

/** Starts `serve --port 0` on the database. */
export function startCloudProcess(db: string): Promise<CloudProcess> {
  return serve([...cliCommand(), "--db", db], repoRoot);
}

export interface Reply {
  /** 0 when the request failed (connection refused or reset). */
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
}

/** One request; a network failure is answered as status 0. */
export async function request(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Reply> {
  try {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: 0, text: "", body: null };
  }
}

/** SDK auth headers of a project. */
export function sdkHeaders(p: ProcessProject): Record<string, string> {
  return { authorization: `Bearer ${p.sdkSecret}`, "x-svc-project": p.projectId };
}

/** Mints an agent key through a running cloud. */
export async function mintKeyVia(url: string, p: ProcessProject, userId: string): Promise<string> {
  const res = await request(url, "POST", "/v1/sdk/keys", sdkHeaders(p), { userId, name: "k", scopes: [] });
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${res.text}`);
  return res.body.key;
}
