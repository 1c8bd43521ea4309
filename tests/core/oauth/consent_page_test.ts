// The consent page says who is deciding and what each scope allows: the app's description of the scope and the
// intents that need it, beside the client's name and where the user goes back to. Its controls keep their
// accessible names (one checkbox per scope labelled with the scope's name, "Allow" and "Deny").
import { test } from "node:test";
import assert from "node:assert/strict";
import { authorizeParams, getAuthorize, pkce, register } from "../../fixtures/oauth_app.ts";
import { intents, notesSvc } from "../../fixtures/notes_svc.ts";

test("the consent page shows the signed-in user, each scope's description and the intents it allows", async () => {
  const svc = notesSvc({
    oauth: {},
    scopes: { "notes:read": "Read your notes", "notes:write": "Create and change your notes", admin: "Administer" },
  });
  try {
    const handle = (req: Request) => svc.handle(req);
    const clientId = await register(handle, undefined, "Claude Desktop");
    const page = await (await getAuthorize(handle, "alice", authorizeParams(clientId, (await pkce()).challenge)))
      .text();
    assert.match(page, /You are signed in as <strong>alice<\/strong>/);
    assert.match(page, /Allow <strong>Claude Desktop<\/strong>/);
    assert.match(page, /sent back to <strong>127\.0\.0\.1:5555<\/strong>/);
    const write = intents.filter((i) => i.requiredScopes.includes("notes:write")).map((i) => i.title);
    const about = /<p class="about" id="scope-1-about">([^<]*)<\/p>/.exec(page)?.[1] ?? "";
    assert.match(about, /^Create and change your notes\. It allows: /);
    for (const title of write) assert.ok(about.includes(title), title);
    // The checkbox is still labelled with the scope's name alone; the description follows it.
    assert.match(page, /<label for="scope-1">notes:write<\/label><\/div>\s*<p class="about" id="scope-1-about">/);
  } finally {
    await svc.close();
  }
});

test("scopes may be given as [{ name, description }] beside plain names", async () => {
  const svc = notesSvc({
    oauth: {},
    scopes: ["notes:read", { name: "notes:write", description: "Create and change your notes" }, "admin"],
  });
  try {
    const handle = (req: Request) => svc.handle(req);
    const clientId = await register(handle);
    const page = await (await getAuthorize(handle, "alice", authorizeParams(clientId, (await pkce()).challenge)))
      .text();
    assert.match(page, /id="scope-1-about">Create and change your notes\./);
    assert.match(page, /id="scope-0-about">It allows: /, "a scope without a description still lists its intents");
  } finally {
    await svc.close();
  }
});
