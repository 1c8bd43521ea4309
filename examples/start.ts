// `npm start`: the whole story on embedded libSQL files. Starts the cloud
// (data/svc.db, a demo project created on first run with its secret kept in
// data/demo-project.json), starts the notes app in hybrid mode against it
// (data/app.db), and prints a walk-through. Ctrl-C stops both cleanly, at once
// even while agents long-poll, and within 10 s whatever clients do (a second Ctrl-C: at once).
// Ports: CLOUD_PORT (8787) and APP_PORT (8000).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createCloud } from "../cloud/mod.ts";
import { openCloudStorage } from "../cloud/open_cloud_storage.ts";
import { createProject } from "../cloud/projects/projects.ts";
import { createSetupLink } from "../cloud/operators/setup_link.ts";
import { serve } from "../adapters/deno.ts";
import { createNotesApp } from "./notes_app.ts";

const CLOUD_DB = "file:./data/svc.db";
const PROJECT_FILE = "./data/demo-project.json";
mkdirSync("./data", { recursive: true });

/** The demo project: created once, its sdkSecret kept in a file only its owner can read. */
async function demoProject(): Promise<{ projectId: string; sdkSecret: string }> {
  const storage = await openCloudStorage(CLOUD_DB);
  try {
    if (existsSync(PROJECT_FILE)) {
      const saved = JSON.parse(readFileSync(PROJECT_FILE, "utf8"));
      if (await storage.projects.findProject(saved.projectId)) return saved;
    }
    const { project, sdkSecret } = await createProject(storage, "demo");
    const saved = { projectId: project.id, sdkSecret };
    writeFileSync(PROJECT_FILE, JSON.stringify(saved) + "\n", { mode: 0o600 });
    return saved;
  } finally {
    await storage.close();
  }
}

/**
 * The demo project's sdkSecret as its file holds it now. The app calls this before each call to the cloud, so
 * after a rotation in the dashboard, writing the new secret into the file is enough: the running app picks it up
 * at its next retry (and `npm start` reads it at each start). `SVC_SDK_SECRET`, when set, wins over the file.
 */
function currentSdkSecret(): string {
  return Deno.env.get("SVC_SDK_SECRET") || JSON.parse(readFileSync(PROJECT_FILE, "utf8")).sdkSecret;
}

/** Serves on the port named by `variable`; a port in use ends the program with one line saying what to do. */
async function listen(handler: (req: Request) => Promise<Response>, variable: string, fallback: number) {
  try {
    return await serve(handler, { port: Number(Deno.env.get(variable) ?? fallback), hostname: "127.0.0.1" });
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    console.error(`npm start: ${(error as Error).message} (for example ${variable}=0 npm start).`);
    Deno.exit(1);
  }
}

const project = await demoProject();
/** The dashboard's one-time setup link while no operator exists (else `null`: sign in as before). */
const setupLink = await (async () => {
  const storage = await openCloudStorage(CLOUD_DB);
  try {
    return await createSetupLink(storage);
  } finally {
    await storage.close();
  }
})();
const cloud = createCloud({ db: CLOUD_DB });
await cloud.ready;
const cloudServer = await listen(cloud.handle, "CLOUD_PORT", 8787);
const app = await createNotesApp({
  db: "file:./data/app.db",
  cloud: {
    endpoint: cloudServer.url,
    projectId: project.projectId,
    sdkSecret: currentSdkSecret,
    label: "notes example",
  },
});
const appServer = await listen(app.fetch, "APP_PORT", 8000);

const A = appServer.url;
const C = cloudServer.url;
const json = `-H 'content-type: application/json'`;
const field = (name: string) => `sed -E 's/.*"${name}":"([^"]+)".*/\\1/'`;
const agentBearer = `-H "authorization: Bearer $KEY"`;
const sdkAuth = `-H "authorization: Bearer $SDK" -H "x-svc-project: ${project.projectId}"`;

console.log(`
Cloud  ${C}  (data/svc.db; demo project ${project.projectId}, its sdkSecret in ${PROJECT_FILE})
App    ${A}  (data/app.db; the notes app in hybrid mode)
Dashboard ${C}/dashboard  ${
  setupLink
    ? `first run: open ${C}${setupLink} within 1 hour to create your admin`
    : "sign in with your operator (or: node cloud/main.ts admin create --email E, password on stdin)"
}
Ctrl-C stops both. Paste these lines into another terminal, in this folder:

0. Read the demo project's sdkSecret from its file (it is never printed):
   SDK=$(${field("sdkSecret")} ${PROJECT_FILE})

1. Sign in to the app as the demo user alice and mint an agent key (shown once):
   MINTED=$(curl -s -X POST ${A}/svc/keys -b session=alice ${json} -d '{"name":"my agent","scopes":["notes:read","notes:write"]}'); echo $MINTED
   KEY=$(echo $MINTED | ${field("key")}); KEY_ID=$(echo $MINTED | ${field("id")})

2. As the agent, see what the key may do, and run an intent:
   curl -s ${A}/svc/agent/intents ${agentBearer}
   curl -s -X POST ${A}/svc/agent/run ${agentBearer} ${json} -d '{"intent":"notes.create","payload":{"title":"Buy milk"}}'

3. Trigger a scope violation (the key lacks notes:delete), then see it in the cloud:
   curl -s -X POST ${A}/svc/agent/run ${agentBearer} ${json} -d '{"intent":"notes.delete","payload":{"id":"00000000-0000-4000-8000-000000000000"}}'
   curl -s "${C}/v1/sdk/violations?keyId=$KEY_ID" ${sdkAuth}
   What your agent did (each run, refused or not) is listed under your keys at ${A}/ (signed in as alice), and in:
   curl -s ${A}/svc/activity -b session=alice

4. Have the app emit an event: alice writes a note in the app itself, and the app tells her agent:
   curl -s -X POST ${A}/notes -b session=alice ${json} -d '{"title":"Call Bob"}'

   Look at it waiting in the dashboard: ${C}/dashboard/projects/${project.projectId}/inbox/alice

5. Read it with the agent client (examples/agent.ts), which acknowledges it once handled:
   SVC_KEY=$KEY APP_URL=${A} CLOUD_URL=${C} npm run agent -- --once

6. The inbox is now empty (acknowledged items are not delivered again):
   curl -s "${C}/v1/agent/inbox?cursor=0" ${agentBearer}

7. In the dashboard (sign in as its line above says), see the violation of step 3 and the event your agent handled:
   echo "${C}/dashboard/projects/${project.projectId}/violations?key=$KEY_ID"
   echo "${C}/dashboard/projects/${project.projectId}/inbox/alice?status=acknowledged"

8. Rotate the sdkSecret in the dashboard (Settings; the new one is shown once). The old one stops at once: within 5 s
   the app's agent routes answer 503 CLOUD_CREDENTIALS_REFUSED (it can no longer hear revocations) and its log says
   what to do. Write the new secret into ${PROJECT_FILE}; the app re-reads it before each retry and serves again:
   NEW=svcs_…   # the secret the dashboard showed
   printf '{"projectId":"%s","sdkSecret":"%s"}\\n' ${project.projectId} "$NEW" > ${PROJECT_FILE}
   curl -s -X POST ${A}/svc/agent/run ${agentBearer} ${json} -d '{"intent":"notes.list"}'

9. An intent that waits for alice's approval: the agent asks to delete all her notes and gets 202 with a decideUrl;
   nothing runs until she decides. She opens the page (in a browser signed in as alice: ${A}/login), or approves here:
   ASKED=$(curl -s -X POST ${A}/svc/agent/run ${agentBearer} ${json} -d '{"intent":"notes.delete_all","payload":{"confirm":true}}'); echo $ASKED
   APR=$(echo $ASKED | ${field("approvalId")})
   curl -s "${A}/svc/approvals?status=pending" -b session=alice
   curl -s -X POST ${A}/svc/approvals/$APR/approve -b session=alice
   The agent reads the outcome (approved, with the result; or denied, expired, cancelled):
   curl -s "${A}/svc/agent/approvals/$APR?wait=20" ${agentBearer}

10. Connect an MCP client to ${A}/svc/mcp, one of two ways:
   - paste the key (Claude Code's .mcp.json): {"mcpServers":{"notes":{"type":"http","url":"${A}/svc/mcp","headers":{"Authorization":"Bearer $KEY"}}}}
   - OAuth: give the client the URL alone. It opens ${A}/login in your browser (demo: any name signs in), then the
     consent page: tick what it may do, Allow; it gets a key of its own, listed in GET /svc/keys with its name.
   The MCP Inspector's CLI lists the tools of the pasted key:
   npx @modelcontextprotocol/inspector --cli ${A}/svc/mcp --transport http --method tools/list --header "Authorization: Bearer $KEY"
`);

/** How long Ctrl-C (or SIGTERM) may take before the process exits anyway: `serve --shutdown-timeout`'s default. */
const SHUTDOWN_TIMEOUT_MS = 10_000;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    if (stopping) {
      console.log(`${signal}: second signal: exiting now`);
      Deno.exit(1);
    }
    stopping = true;
    // Whatever clients do (a request that never ends), the process ends within the timeout.
    setTimeout(() => {
      console.log(`shutdown timeout (${SHUTDOWN_TIMEOUT_MS / 1000} s): exiting with requests still in flight`);
      Deno.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    // The app first, while the cloud still answers: its outbox and revocation feed stop without an error to log.
    // Each server's close() says Connection: close to kept-alive clients and closes what is left at its timeout.
    await appServer.close(SHUTDOWN_TIMEOUT_MS / 2);
    await app.close();
    // cloud.close() answers waiting long polls at once, so the server need not wait out their `wait`.
    await Promise.all([cloudServer.close(SHUTDOWN_TIMEOUT_MS / 2), cloud.close()]);
    console.log("stopped");
    Deno.exit(0);
  });
}
