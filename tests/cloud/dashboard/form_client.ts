// A browser without a browser, for the dashboard's logic tests: a cookie jar,
// GETs, and form posts that carry the CSRF token of the last page seen, all
// through `handle()` of a real cloud on real libSQL.
import { createOperator, OPERATOR_PASSWORD } from "./operator_fixture.ts";
import type { TestCloud } from "../../fixtures/test_cloud.ts";

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export interface FormClient {
  get(path: string): Promise<Page>;
  /** Posts a form; the CSRF token of the last page is added unless `csrf` is given (or `null` to leave it out). */
  post(path: string, fields: Record<string, string> | [string, string][], options?: PostOptions): Promise<Page>;
  /** The cookies held. */
  cookies: Map<string, string>;
}

export interface PostOptions {
  csrf?: string | null;
  headers?: Record<string, string>;
}

/** The test cloud's dashboard reads the client's address from this header (real sockets give srvx's `ip`). */
export const ADDRESS_HEADER = "x-test-address";

/** Reads the client's address from {@linkcode ADDRESS_HEADER}. */
export const testAddress = (req: Request): string | null => req.headers.get(ADDRESS_HEADER);

export function formClient(
  handle: (req: Request) => Promise<Response>,
  base = "http://cloud.test",
  address = `10.0.0.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`,
): FormClient {
  const cookies = new Map<string, string>();
  let lastCsrf: string | undefined;
  async function send(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Page> {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await handle(
      new Request(base + path, { ...init, headers: { ...init.headers, cookie, [ADDRESS_HEADER]: address } }),
    );
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split("; ");
      const at = pair.indexOf("=");
      if (attrs.includes("Max-Age=0")) cookies.delete(pair.slice(0, at));
      else cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const text = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text);
    if (token) lastCsrf = token[1];
    return { status: res.status, headers: res.headers, text, location: res.headers.get("location") };
  }
  return {
    cookies,
    get: (path) => send(path, { method: "GET" }),
    post(path, fields, options = {}) {
      const form = new URLSearchParams(fields);
      const csrf = options.csrf === undefined ? lastCsrf : options.csrf;
      if (csrf !== null && csrf !== undefined) form.set("csrf", csrf);
      return send(path, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "same-origin",
          ...options.headers,
        },
        body: form.toString(),
      });
    },
  };
}

/** Signs in a new operator of the role through the sign-in form. */
export async function signedIn(t: TestCloud, email: string, role: "admin" | "viewer" = "admin"): Promise<FormClient> {
  await createOperator(t.storage, email, role);
  const client = formClient(t.cloud.handle);
  await client.get("/dashboard/sign-in");
  const res = await client.post("/dashboard/sign-in", { email, password: OPERATOR_PASSWORD });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return client;
}
