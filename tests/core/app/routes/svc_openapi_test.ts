import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { AppSide } from "../../../../core/app/routes/mod.ts";
import { openApiDocument, type OpenApiOptions, openApiPath } from "../../../../core/openapi/mod.ts";
import type { Route } from "../../../../core/http/mod.ts";
import { svcRoutes } from "../../../../core/app/mod.ts";
import { asAgent, asUser, intents, mint, notesSvc, run } from "../../../fixtures/notes_svc.ts";

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>>; components: Record<string, unknown> };

async function documentOf(overrides: Parameters<typeof notesSvc>[0] = {}): Promise<Doc> {
  const svc = notesSvc(overrides);
  try {
    const res = await svc.handle(new Request("http://app.test/svc/openapi.json"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    return await res.json();
  } finally {
    await svc.close();
  }
}

/** The /svc route table, built the way createSvc builds it (every option on). */
function svcRouteTable(): Promise<{ routes: Route<AppSide>[]; close: () => Promise<void> }> {
  return Promise.resolve({ routes: svcRoutes({ mcp: true, openapi: true }), close: () => Promise.resolve() });
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));

test("the document names every route of the /svc table and no route that does not exist", async () => {
  const doc = await documentOf();
  const table = await svcRouteTable();
  try {
    const fromTable = table.routes.map((r) => `${r.method} ${openApiPath(r.path)}`);
    assert.deepEqual(operations(doc).sort(), fromTable.sort());
  } finally {
    await table.close();
  }
});

test("every operation in the document is served by handle(), never answered NOT_FOUND or 405", async () => {
  const svc = notesSvc();
  try {
    for (const op of operations(await documentOf())) {
      const [method, path] = op.split(" ");
      const res = await svc.handle(new Request(`http://app.test${path.replace(/\{\w+\}/g, "x")}`, { method }));
      const body = await res.text();
      assert.ok(res.status !== 405 && !(res.status === 404 && body.includes('"NOT_FOUND"')), `${op}: ${body}`);
    }
  } finally {
    await svc.close();
  }
});

test("the document is valid OpenAPI 3.1 and its references resolve, with oauth too", async () => {
  for (const overrides of [{ onAgentIntent: () => null }, { oauth: {} }]) {
    const validator = new Validator();
    const result = await validator.validate(await documentOf(overrides));
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, "3.1");
    assert.doesNotThrow(() => validator.resolveRefs());
  }
});

test("each intent's payload and result are named schemas, and /svc/agent/run has one body per intent", async () => {
  const doc = await documentOf();
  const schemas = doc.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
  for (const intent of intents) {
    assert.ok(schemas[`${intent.name}.input`], `${intent.name}.input`);
    assert.ok(schemas[`${intent.name}.output`], `${intent.name}.output`);
  }
  assert.deepEqual(Object.keys(schemas["notes.create.input"].properties!), ["title", "body"]);
  const runBody = (doc.paths["/svc/agent/run"].post.requestBody as {
    content: { "application/json": { schema: { oneOf: { properties: { intent: unknown; payload: unknown } }[] } } };
  }).content["application/json"].schema;
  assert.equal(runBody.oneOf.length, intents.length);
  assert.deepEqual(runBody.oneOf[0].properties.intent, { const: "notes.create" });
  assert.deepEqual(runBody.oneOf[0].properties.payload, { $ref: "#/components/schemas/notes.create.input" });
});

test("routes declare their auth as security schemes, and GET /svc/openapi.json needs none", async () => {
  const doc = await documentOf();
  assert.deepEqual(doc.paths["/svc/keys"].post.security, [{ appSession: [] }]);
  assert.deepEqual(doc.paths["/svc/agent/run"].post.security, [{ agentKey: [] }]);
  assert.deepEqual(doc.paths["/svc/mcp"].post.security, [{ agentKey: [] }]);
  assert.deepEqual(doc.paths["/svc/openapi.json"].get.security, []);
  const errors = doc.paths["/svc/agent/run"].post.responses as Record<string, unknown>;
  assert.deepEqual(errors["401"], { $ref: "#/components/responses/Error" });
});

test("the real answers of the /svc routes match the response schemas the document is built from", async () => {
  const table = await svcRouteTable();
  const svc = notesSvc();
  try {
    const schema = (method: string, path: string) => table.routes.find((r) => r.method === method && r.path === path)!;
    const check = async (route: Route<AppSide>, res: Response) => {
      const schema = route.responses[res.status];
      assert.ok(schema, `${route.method} ${route.path} documents its ${res.status}`);
      assert.ok(res.status < 300, route.path);
      const parsed = schema.safeParse(await res.json());
      assert.ok(parsed.success, `${route.method} ${route.path}: ${JSON.stringify(parsed.error?.issues)}`);
    };
    const minted = await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scopes: ["notes:write"] });
    await check(schema("POST", "/svc/keys"), minted.clone());
    const { key, id } = await minted.json();
    await check(schema("GET", "/svc/agent/intents"), await asAgent(svc, key, "GET", "/svc/agent/intents"));
    await check(schema("POST", "/svc/agent/run"), await run(svc, key, "notes.create", { title: "t" }));
    await check(schema("GET", "/svc/keys"), await asUser(svc, "alice", "GET", "/svc/keys"));
    await check(schema("DELETE", "/svc/keys/:id"), await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`));
    const undocumented = table.routes.filter((r) => !Object.keys(r.responses).some((s) => s.startsWith("2")));
    assert.deepEqual(undocumented.map((r) => r.path), [], "every route documents its success");
  } finally {
    await svc.close();
    await table.close();
  }
});

test("openapi: false removes /svc/openapi.json", async () => {
  const svc = notesSvc({ openapi: false });
  try {
    assert.equal((await svc.handle(new Request("http://app.test/svc/openapi.json"))).status, 404);
    await mint(svc, "alice", []);
  } finally {
    await svc.close();
  }
});

test("the generator documents any route table: query, path and status, several schemes, recursive schemas", async () => {
  type Tree = { name: string; children: Tree[] };
  const tree: z.ZodType<Tree> = z.object({
    name: z.string(),
    get children() {
      return z.array(tree);
    },
  });
  const doc = openApiDocument({
    info: { title: "cloud", version: "1" },
    servers: [{ url: "http://127.0.0.1:8787" }],
    security: {
      sdk: { sdkSecret: { type: "http", scheme: "bearer" }, project: { type: "apiKey", in: "header", name: "x-p" } },
      none: {},
    },
    routes: [
      {
        method: "GET",
        path: "/v1/things/:thingId",
        auth: "sdk",
        summary: "Read a thing",
        params: z.object({ thingId: z.uuid() }),
        query: z.object({ limit: z.coerce.number().int().max(200).optional().describe("Page size") }),
        responses: { 200: tree },
      },
      { method: "POST", path: "/v1/things", auth: "none", summary: "Make one", responses: { 202: tree }, body: tree },
    ],
  }) as unknown as Doc;
  const get = doc.paths["/v1/things/{thingId}"].get;
  assert.deepEqual(get.security, [{ sdkSecret: [], project: [] }]);
  const parameters = get.parameters as { name: string; in: string; required: boolean; schema: { format?: string } }[];
  assert.deepEqual(parameters.map((p) => [p.name, p.in, p.required]), [["thingId", "path", true], [
    "limit",
    "query",
    false,
  ]]);
  assert.equal(parameters[0].schema.format, "uuid");
  assert.ok((doc.paths["/v1/things"].post.responses as Record<string, unknown>)["202"]);
  assert.doesNotMatch(JSON.stringify(doc), /"#"|#\/\$defs/, "references point into components");
  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Record<string, unknown>);
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  assert.doesNotThrow(() => validator.resolveRefs());
});

test("POST /svc/keys documents the app's scopes as an enum, and the document has servers and a license", async () => {
  const doc = await documentOf() as Doc & { servers: unknown[]; info: { license: { identifier: string } } };
  const body = doc.components.schemas as Record<string, { properties?: { scopes?: { items: { enum: string[] } } } }>;
  const ref = (doc.paths["/svc/keys"].post.requestBody as { content: Record<string, { schema: { $ref: string } }> })
    .content["application/json"].schema.$ref.replace("#/components/schemas/", "");
  assert.deepEqual(body[ref].properties?.scopes?.items.enum, ["notes:read", "notes:write", "admin"]);
  assert.ok(doc.servers.length > 0);
  assert.equal(doc.info.license.identifier, "MIT");
});

test("the generator keeps only the components a path reaches and only standard formats", () => {
  const base: OpenApiOptions = {
    info: { title: "t", version: "1" },
    servers: [{ url: "http://127.0.0.1" }],
    security: { none: {} },
    routes: [{
      method: "POST",
      path: "/v1/things",
      auth: "none",
      summary: "Make one",
      body: z.object({ key: z.string().startsWith("svc_live_"), at: z.iso.datetime(), id: z.cuid() }),
      responses: { 201: z.object({ ok: z.literal(true) }) },
    }],
  };
  const replaced = openApiDocument({
    ...base,
    extend: (components) => {
      const replacement = components.add("Replacement", { type: "object" });
      return { "POST /v1/things": { requestBody: { content: { "application/json": { schema: replacement } } } } };
    },
  }) as unknown as Doc;
  const names = Object.keys(replaced.components.schemas as object).sort();
  assert.deepEqual(names, ["Error", "Replacement", "post_v1_things.201"], "the replaced body is gone");
  const generated = JSON.stringify(openApiDocument(base));
  const formats = [...generated.matchAll(/"format":"([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(formats, ["date-time"], "starts_with and cuid are dropped; their patterns stay");
  assert.match(generated, /\^svc_live_/);
});

test("with oauth, the document holds OAuth's rows: public, form bodies as forms, OAuth's own error shape, each served", async () => {
  const overrides = { oauth: {} };
  const doc = await documentOf(overrides);
  const oauth = operations(doc).filter((op) => /oauth/.test(op)).sort();
  assert.deepEqual(oauth, [
    "GET /.well-known/oauth-authorization-server/svc",
    "GET /.well-known/oauth-protected-resource/svc",
    "GET /.well-known/oauth-protected-resource/svc/agent/intents",
    "GET /.well-known/oauth-protected-resource/svc/agent/run",
    "GET /.well-known/oauth-protected-resource/svc/mcp",
    "GET /svc/oauth/authorize",
    "POST /svc/oauth/authorize",
    "POST /svc/oauth/register",
    "POST /svc/oauth/revoke",
    "POST /svc/oauth/token",
  ]);
  const token = doc.paths["/svc/oauth/token"].post;
  assert.deepEqual(token.security, []);
  assert.deepEqual(Object.keys((token.requestBody as { content: object }).content), [
    "application/x-www-form-urlencoded",
  ]);
  const refusal = (token.responses as Record<string, { content: Record<string, { schema: { $ref: string } }> }>)["400"];
  const name = refusal.content["application/json"].schema.$ref.split("/").pop()!;
  const schema = (doc.components.schemas as Record<string, { required?: string[] }>)[name];
  assert.deepEqual(schema.required, ["error", "error_description"]);
  const authorize = doc.paths["/svc/oauth/authorize"].get.responses as Record<string, { content?: object }>;
  assert.deepEqual(Object.keys(authorize["200"].content!), ["text/html; charset=utf-8"]);
  const svc = notesSvc(overrides);
  try {
    for (const op of oauth) {
      const [method, path] = op.split(" ");
      const res = await svc.handle(new Request(`http://app.test${path}`, { method }));
      const body = await res.text();
      assert.ok(res.status !== 405 && res.status !== 404, `${op}: ${res.status} ${body}`);
      if (res.status >= 400 && res.headers.get("content-type") === "application/json") {
        assert.equal(typeof JSON.parse(body).error, "string", `${op} answers OAuth's error, not the envelope`);
      }
    }
  } finally {
    await svc.close();
  }
});
