// @slow: Chromium, a real cloud and an app on sockets
// Issue 27's end-to-end proof, every part real: a cloud and a hybrid app with `oauth` on, each on a 127.0.0.1 socket;
// the official MCP SDK client (its OAuth client provider, StreamableHTTPClientTransport over fetch) meets a 401,
// discovers (RFC 9728, then RFC 8414) and registers, once by Client ID Metadata Document (served by the test over
// https on 127.0.0.1, with `allowLoopbackClientIds`) and once by Dynamic Client Registration; Chromium signs in at the
// app's own sign-in page, sees the consent and clicks Allow; the code the client's redirect URI receives finishes the
// authorization; the client lists and calls a tool. Then an operator revokes that key in the cloud's dashboard
// (Chromium), the client's next call gets a 401 once the feed brings the revocation, and a new consent lets it call again.
// The SDK takes only an https client_id URL, so the document's server has a self-signed certificate that the test adds
// to Node's trusted CAs (`tls.setDefaultCACertificates`); Chromium is driven from the Node run only (fixtures/chromium.ts).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { createClient } from "@libsql/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client";
import { isOAuthReturnUrl, type Svc, withSvc } from "../../../mod.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { inChromium, launchChromium, mainText } from "../../fixtures/chromium.ts";
import { notesSvc } from "../../fixtures/notes_svc.ts";
import { type CloudServer, listen, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";
import { signIn } from "../../cloud/dashboard/browser_sign_in.ts";
import { createOperator, OPERATOR_PASSWORD } from "../../cloud/dashboard/operator_fixture.ts";

// Untyped under deno check (the SDK types its subpaths through typesVersions); see tests/fixtures/mcp_client.ts.
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");

const OPERATOR = { email: "ops@example.com", password: OPERATOR_PASSWORD };

/** The SDK's OAuthClientProvider, in memory: it records where it is sent to authorize; `clientMetadataUrl` for CIMD. */
function memoryProvider(name: string, redirect: string, clientMetadataUrl?: string) {
  const saved: { client?: { client_id: string }; tokens?: { access_token: string }; verifier?: string } = {};
  return {
    saved,
    clientMetadataUrl,
    authorizationUrl: null as URL | null,
    expectedState: "",
    get redirectUrl() {
      return redirect;
    },
    get clientMetadata() {
      return {
        client_name: name,
        redirect_uris: [redirect],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    state(): string {
      return this.expectedState = crypto.randomUUID();
    },
    clientInformation: () => saved.client,
    saveClientInformation: (info: { client_id: string }) => void (saved.client = info),
    tokens: () => saved.tokens,
    saveTokens: (tokens: { access_token: string }) => void (saved.tokens = tokens),
    redirectToAuthorization(url: URL) {
      this.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier: string) => void (saved.verifier = verifier),
    codeVerifier: () => saved.verifier!,
    invalidateCredentials(scope: string) {
      if (scope === "all" || scope === "tokens") delete saved.tokens;
      if (scope === "all" || scope === "client") delete saved.client;
    },
  };
}
type Provider = ReturnType<typeof memoryProvider>;

/** A self-signed certificate for 127.0.0.1 (openssl), so the client_id URL is the https URL the SDK insists on. */
function loopbackCertificate(dir: ReturnType<typeof tempDir>): { key: string; cert: string } {
  const args = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 " +
    "-addext subjectAltName=IP:127.0.0.1";
  execFileSync("openssl", [...args.split(" "), "-keyout", dir.file("key.pem"), "-out", dir.file("cert.pem")], {
    stdio: "ignore",
  });
  return { key: readFileSync(dir.file("key.pem"), "utf8"), cert: readFileSync(dir.file("cert.pem"), "utf8") };
}

const TITLE = "the MCP SDK client end to end: OAuth, consent in Chromium, a revoke in the dashboard";
inChromium(TITLE, () =>
  describe(TITLE, () => {
    const dir = tempDir("svc-oauth-e2e-");
    const trusted = tls.getCACertificates("default");
    let cloud: CloudServer;
    let svc: Svc;
    let app: RunningServer;
    let callback: RunningServer;
    let documents: Server;
    let documentsUrl: string;
    let browser: Browser;
    let operator: Page;
    /** Every request of the SDK client to the app, `METHOD path status`, in order. */
    const seen: string[] = [];
    const sdkFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const res = await fetch(url, init);
      seen.push(`${init?.method ?? "GET"} ${new URL(url).pathname} ${res.status}`);
      return res;
    };
    const answers = (path: string): number[] =>
      seen.filter((s) => s.split(" ")[1] === path).map((s) => Number(s.split(" ")[2]));

    before(async () => {
      const { key, cert } = loopbackCertificate(dir);
      tls.setDefaultCACertificates([...trusted, cert]); // the app's fetch of the document trusts it
      documents = createServer({ key, cert }, (req, res) => {
        const clientId = `${documentsUrl}${req.url}`;
        const name = /\/clients\/([\w-]+)\.json$/.exec(req.url ?? "")?.[1];
        if (!name) return void res.writeHead(404).end();
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
          client_id: clientId,
          client_name: name.replace(/-/g, " "),
          redirect_uris: [`${callback.url}/callback`],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        }));
      });
      await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
      documentsUrl = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;

      const db = `file:${dir.file("cloud.db")}`;
      cloud = await startCloudServer(db);
      const client = createClient({ url: db });
      await createOperator(await openCloudStorage(client), OPERATOR.email);
      client.close();
      svc = notesSvc({
        mode: "hybrid",
        storage: `file:${dir.file("app.db")}`,
        cloud: cloud.appConfig(),
        userResolver: (req) => /(?:^|; )demo_user=(\w+)/.exec(req.headers.get("cookie") ?? "")?.[1] ?? null,
        oauth: { signInUrl: "/login", allowLoopbackClientIds: true },
      });
      // The app's own sign-in: signs in the user named in the form and goes back only to the authorization URL.
      app = await listen(withSvc(svc, async (req) => {
        const url = new URL(req.url);
        if (url.pathname !== "/login") return new Response("app", { status: 404 });
        if (req.method === "GET") {
          const back = url.searchParams.get("return_to") ?? "";
          return new Response(
            `<!doctype html><title>Sign in</title><form method="post"><input type="hidden" name="return_to" value="${
              encodeURI(back)
            }"><label>User <input name="user"></label><button>Sign in</button></form>`,
            { headers: { "content-type": "text/html" } },
          );
        }
        const form = new URLSearchParams(await req.text());
        const back = decodeURI(form.get("return_to") ?? "");
        const user = /^\w+$/.exec(form.get("user") ?? "")?.[0] ?? "nobody";
        return new Response(null, {
          status: 302,
          headers: {
            location: isOAuthReturnUrl(back, url.origin) ? back : "/",
            "set-cookie": `demo_user=${user}; Path=/; HttpOnly; SameSite=Lax`,
          },
        });
      }));
      callback = await listen(() => new Response("back at the client"));
      browser = await launchChromium();
      operator = await (await browser.newContext()).newPage();
      await signIn(operator, cloud.url, OPERATOR);
      assert.equal(new URL(operator.url()).pathname, "/dashboard/projects", "the operator is signed in");
      await waitFor(
        "the app to follow the revocation feed",
        async () => (await svc.health()).revocationFeed?.connected,
      );
    });

    after(async () => {
      await browser?.close();
      await callback?.close();
      await app?.close();
      await svc?.close();
      await cloud?.stop();
      await new Promise((resolve) => documents?.close(resolve));
      tls.setDefaultCACertificates(trusted);
      dir.remove();
    });

    /** The user's browser on the authorization URL: signs in unless `signedIn`, allows on the consent page; the code. */
    async function consentInChromium(
      user: BrowserContext,
      provider: Provider,
      name: string,
      signedIn: boolean,
    ): Promise<string> {
      const page = await user.newPage();
      try {
        await page.goto(provider.authorizationUrl!.href);
        assert.equal(
          new URL(page.url()).pathname === "/login",
          !signedIn,
          "a signed-out user meets the app's sign-in",
        );
        if (!signedIn) {
          await page.getByLabel("User").fill("alice");
          await page.getByRole("button", { name: "Sign in" }).click();
        }
        await page.getByRole("heading", { name: `Allow ${name} to act for you?` }).waitFor();
        assert.equal(new URL(page.url()).pathname, "/svc/oauth/authorize");
        await Promise.all([
          page.waitForURL(`${callback.url}/callback?**`),
          page.getByRole("button", { name: "Allow" }).click(),
        ]);
        const back = new URL(page.url());
        assert.equal(back.searchParams.get("state"), provider.expectedState);
        assert.equal(back.searchParams.get("iss"), `${app.url}/svc`);
        return back.searchParams.get("code")!;
      } finally {
        await page.close();
      }
    }

    /** Starts with the 401, consents in Chromium and finishes the authorization: a connected client. */
    async function authorize(
      user: BrowserContext,
      provider: Provider,
      name: string,
      signedIn: boolean,
    ): Promise<Client> {
      const url = new URL(`${app.url}/svc/mcp`);
      provider.authorizationUrl = null;
      await assert.rejects(
        new Client({ name: "e2e", version: "1.0.0" }).connect(
          new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: sdkFetch }),
        ),
        UnauthorizedError,
      );
      const code = await consentInChromium(user, provider, name, signedIn);
      const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: sdkFetch });
      await transport.finishAuth(code);
      const client = new Client({ name: "e2e", version: "1.0.0" });
      await client.connect(transport);
      return client;
    }

    async function createNote(client: Client, title: string): Promise<void> {
      const created = await client.callTool({ name: "notes.create", arguments: { title } });
      assert.deepEqual(created.structuredContent, { id: `n_${title}`, title, owner: "alice" });
    }

    /** The whole flow for one way of registering. */
    async function flow(provider: Provider, name: string): Promise<void> {
      const user = await browser.newContext();
      try {
        seen.length = 0;
        const client = await authorize(user, provider, name, false);
        assert.equal(answers("/svc/mcp")[0], 401, "the client began with a 401");
        const discovery = seen.filter((s) => s.includes("/.well-known/") && s.endsWith(" 200"));
        assert.deepEqual(discovery.slice(0, 2), [
          "GET /.well-known/oauth-protected-resource/svc/mcp 200", // RFC 9728, named by the 401
          "GET /.well-known/oauth-authorization-server/svc 200", // then RFC 8414 of the issuer it names
        ]);
        const registered = seen.includes("POST /svc/oauth/register 201");
        assert.equal(registered, provider.clientMetadataUrl === undefined, "DCR only without a client_id URL");
        const authorizationUrl = new URL(`${app.url}/svc/oauth/authorize`);
        assert.equal(provider.authorizationUrl!.origin + provider.authorizationUrl!.pathname, authorizationUrl.href);
        assert.equal(provider.authorizationUrl!.searchParams.get("resource"), `${app.url}/svc/mcp`);
        assert.match(provider.saved.tokens!.access_token, /^svc_live_/);
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === "notes.create"));
        await createNote(client, "first");

        // The key reaches the cloud; an operator revokes it in the dashboard, where it is listed with the client's name.
        assert.equal(await svc.sync(), 0, "the key reached the cloud");
        await operator.goto(`${cloud.url}/dashboard/projects/${cloud.projectId}/keys?user=alice&status=active`);
        await operator.getByRole("button", { name: new RegExp(`^Revoke ${name} \\(`) }).click();
        await operator.getByRole("button", { name: "Revoke key" }).click();
        assert.match(await mainText(operator), /The key is revoked/);

        // Once the feed brings the revocation, the client's next call gets a 401 and it is sent back to consent.
        provider.authorizationUrl = null;
        seen.length = 0;
        await waitFor("the client's call to be refused with 401", async () => {
          try {
            await createNote(client, "meanwhile");
            return false;
          } catch (error) {
            if (!(error instanceof UnauthorizedError)) throw error;
            return true;
          }
        });
        assert.equal(answers("/svc/mcp").at(-1), 401, "the app answered the call with 401");
        assert.deepEqual(
          answers("/svc/oauth/token"),
          [400],
          "the SDK tried its refresh token: refused, the grant has ended",
        );
        assert.ok(provider.authorizationUrl, "the client is sent back to consent");
        await client.close().catch(() => {});

        // Consent again (still signed in at the app): the client calls again.
        const again = await authorize(user, provider, name, true);
        await createNote(again, "again");
        await again.close();
      } finally {
        await user.close();
      }
    }

    test("registered by Client ID Metadata Document (an https client_id URL on 127.0.0.1)", async () => {
      const meta = await (await fetch(`${app.url}/.well-known/oauth-authorization-server/svc`)).json();
      assert.equal(meta.client_id_metadata_document_supported, true);
      const clientId = `${documentsUrl}/clients/E2E-CIMD-Client.json`;
      const provider = memoryProvider("E2E CIMD Client", `${callback.url}/callback`, clientId);
      await flow(provider, "E2E CIMD Client");
      assert.equal(provider.saved.client!.client_id, clientId, "the client_id is the document's URL");
    });

    test("registered by Dynamic Client Registration (RFC 7591)", async () => {
      const provider = memoryProvider("E2E DCR Client", `${callback.url}/callback`);
      await flow(provider, "E2E DCR Client");
      assert.match(provider.saved.client!.client_id, /^svcc_/, "registered by DCR");
    });
  }));
