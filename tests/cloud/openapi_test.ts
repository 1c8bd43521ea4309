import { test } from "node:test";
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { cloudRoutes } from "../../cloud/cloud_routes.ts";
import { openApiPath } from "../../core/openapi/mod.ts";
import { startTestCloud } from "../fixtures/test_cloud.ts";

type Doc = { openapi: string; paths: Record<string, Record<string, { security?: unknown[] }>> };

async function served(): Promise<Doc> {
  const t = await startTestCloud();
  try {
    const res = await t.raw("GET", "/v1/openapi.json");
    assert.equal(res.status, 200, "the document needs no credential");
    return res.body;
  } finally {
    await t.close();
  }
}

test("GET /v1/openapi.json names every route of the cloud's table and no route that does not exist", async () => {
  const doc = await served();
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)
  );
  const table = cloudRoutes.map((r) => `${r.method} ${openApiPath(r.path)}`);
  assert.deepEqual(documented.sort(), table.sort());
});

test("GET /v1/openapi.json is valid OpenAPI 3.1 with the SDK routes needing the secret and the project together", async () => {
  const doc = await served();
  assert.equal(doc.openapi.slice(0, 3), "3.1");
  assert.deepEqual(doc.paths["/v1/sdk/violations"].get.security, [{ sdkSecret: [], project: [] }]);
  assert.deepEqual(doc.paths["/v1/agent/inbox"].get.security, [{ agentKey: [] }]);
  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Record<string, unknown>);
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  assert.doesNotThrow(() => validator.resolveRefs());
});

test("GET /v1/openapi.json types query numbers as integers with ranges, timestamps as date-time, and both event answers", async () => {
  const doc = await served() as Doc & {
    servers: unknown[];
    paths: Record<string, Record<string, { parameters?: { name: string; schema: Record<string, unknown> }[] }>>;
    components: { schemas: Record<string, unknown> };
  };
  const query = Object.fromEntries(doc.paths["/v1/agent/inbox"].get.parameters!.map((p) => [p.name, p.schema]));
  assert.deepEqual([query.cursor.type, query.cursor.minimum], ["integer", 0]);
  assert.deepEqual([query.limit.type, query.limit.minimum], ["integer", 1]);
  assert.deepEqual([query.wait.minimum, query.wait.maximum], [0, 20]);
  const responses = (doc.paths["/v1/events"].post as { responses: Record<string, unknown> }).responses;
  assert.ok(responses["200"] && responses["202"], "the duplicate 200 and the 202");
  // A component by its $ref, with the refs inside it followed too.
  const resolved = (value: unknown, depth = 0): unknown => {
    if (Array.isArray(value)) return value.map((v) => resolved(v, depth));
    if (typeof value !== "object" || value === null) return value;
    const ref = (value as { $ref?: string }).$ref;
    if (ref && depth < 10) return resolved(doc.components.schemas[ref.split("/").at(-1)!], depth + 1);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolved(v, depth)]));
  };
  // One shape in, one shape out: the top-level schema of each body and answer is one object, not a union.
  type Media = { content: { "application/json": { schema: unknown } } };
  const shape = (media: unknown) => {
    const schema = resolved((media as Media).content["application/json"].schema) as Record<string, unknown>;
    assert.equal(schema.anyOf ?? schema.oneOf, undefined, JSON.stringify(schema));
    return (schema.required as string[]).toSorted();
  };
  const one = ["duplicate", "eventId", "inboxId", "ok"];
  const expected: Record<string, [string[], string[]]> = {
    "/v1/events": [["agentId", "eventId", "payload", "type"], one],
    "/v1/events/batch": [["events"], ["ok", "results"]],
    "/v1/sdk/violations": [["violation"], ["duplicate", "id", "ok"]],
    "/v1/sdk/violations/batch": [["violations"], ["duplicates", "ids", "ok"]],
  };
  for (const [path, [body, answer]] of Object.entries(expected)) {
    const post = doc.paths[path]?.post as { requestBody: unknown; responses: Record<string, unknown> } | undefined;
    assert.ok(post, `${path} is its own operation`);
    assert.deepEqual(shape(post.requestBody), body, path);
    assert.deepEqual(shape(post.responses[200]), answer, path);
  }
  const text = JSON.stringify(doc);
  assert.doesNotMatch(text, /"format":"(starts_with|ends_with|includes|cuid|ulid)"/);
  assert.match(JSON.stringify(doc.components.schemas["listKeys.200"]), /"createdAt":\{[^}]*"format":"date-time"/);
  assert.ok(doc.servers.length > 0);
});
