// Property-based input testing with fast-check over every route's body, query
// and path, with valid credentials so the input reaches validation: never a
// 5xx, always the envelope, no stack trace or SQL, and after a 4xx nothing was
// stored. Routes come from the tables; the valid samples from _route_samples.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type Client, createClient } from "@libsql/client";
import { cloudRoutes } from "../../cloud/cloud_routes.ts";
import { svcRouteTable } from "../fixtures/svc_table.ts";
import type { Svc } from "../../mod.ts";
import { BASE, mint, notesSvc, SCOPES } from "../fixtures/notes_svc.ts";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";
import { ROUTES, setThrowawayKeyId } from "../fixtures/route_samples.ts";
import { checkProperty } from "../fixtures/property_check.ts";
import {
  assertSafeAnswer,
  duplicateKeyText,
  hostileJson,
  hostileString,
  rawJsonText,
  rowCounts,
} from "../fixtures/input_oracle.ts";

/** Runs per route property: 19 routes × 100, plus the round-trip property. */
export const RUNS = 100;

interface Attempt {
  path: string;
  query: Record<string, string>;
  contentType: string;
  body?: string;
}

function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80"; // a lone surrogate, as the bytes a client could still send
  }
}

/** Every key path of an object, one and two levels down. */
function keyPaths(body: Record<string, unknown>): string[][] {
  return Object.entries(body).flatMap(([k, v]) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? [[k], ...Object.keys(v).map((k2) => [k, k2])] : [[k]]
  );
}

function withValueAt(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const parent = path.length === 1 ? copy : copy[path[0]] as Record<string, unknown>;
  if (value === undefined) delete parent[path[path.length - 1]];
  else parent[path[path.length - 1]] = value;
  return copy;
}

/** Hostile requests built around a route's valid sample. */
function attempts(id: string, queryKeys: string[]): fc.Arbitrary<Attempt> {
  const [method, pattern] = id.split(" ");
  const sample = ROUTES[id].request();
  const samplePath = sample.path.startsWith("/") ? sample.path : pattern;
  const path = pattern.includes(":")
    ? fc.oneof(fc.constant(samplePath), hostileString.map((s) => pattern.replace(/:\w+/, encodeSegment(s) || "x")))
    : fc.constant(samplePath);
  const query = method === "GET"
    ? fc.dictionary(fc.oneof(fc.constantFrom(...queryKeys, "cursor", "limit"), hostileString), hostileString, {
      maxKeys: 3,
    })
    : fc.constant({});
  const valid = (sample.body ?? {}) as Record<string, unknown>;
  const paths = keyPaths(valid);
  const body = method === "POST" || method === "PUT"
    ? fc.oneof(
      paths.length
        ? fc.tuple(fc.constantFrom(...paths), fc.option(hostileJson, { nil: undefined }))
          .map(([p, v]) => JSON.stringify(withValueAt(valid, p, v)))
        : fc.constant(JSON.stringify(valid)),
      hostileJson.map((v) => JSON.stringify(v) ?? "null"),
      rawJsonText,
      fc.tuple(fc.constantFrom(...(paths.length ? paths.map((p) => p[0]) : ["x"])), hostileJson)
        .map(([key, first]) => duplicateKeyText(valid, key, first)),
    )
    : fc.constant(undefined);
  const contentType = fc.constantFrom("application/json", "application/json", "application/json", "text/plain", "");
  return fc.record({ path, query, body, contentType });
}

function toRequest(method: string, base: string, a: Attempt, headers: Record<string, string>): Request {
  const search = new URLSearchParams(a.query).toString();
  const h: Record<string, string> = { ...headers };
  if (a.body !== undefined && a.contentType) h["content-type"] = a.contentType;
  return new Request(`${base}${a.path}${search ? `?${search}` : ""}`, { method, headers: h, body: a.body });
}

/** Checks the answer; after a 4xx the row counts must not have moved. */
async function check(
  handle: (req: Request) => Promise<Response>,
  req: Request,
  counts: () => Promise<string>,
  tally: Map<number, number>,
  successType?: string,
): Promise<void> {
  const what = `${req.method} ${req.url}`;
  const before = await counts();
  const res = await handle(req);
  const type = res.headers.get("content-type");
  // A route answering another media type (the activity export's NDJSON) answers JSON only when it refuses.
  const other = res.status < 400 && successType !== undefined && type === successType;
  const text = await res.text();
  const status = other ? res.status : assertSafeAnswer(res.status, type, text, what);
  if (other) assert.doesNotMatch(text, /\bat \S+ \(|SQLITE_/, what);
  tally.set(status, (tally.get(status) ?? 0) + 1);
  if (status >= 400) assert.equal(await counts(), before, `${what} answered ${status} but stored something`);
}

describe("hostile input to every /v1 route", () => {
  let t: TestCloud;
  let agentKey = "";
  const tally = new Map<number, number>();
  before(async () => {
    t = await startTestCloud();
    agentKey = (await t.mintKey("bob")).key;
    setThrowawayKeyId((await t.mintKey("erin")).id);
  });
  after(() => t.close());

  for (const route of cloudRoutes) {
    const id = `${route.method} ${route.path}`;
    const queryKeys = "query" in route ? Object.keys((route.query as unknown as { shape: object }).shape) : [];
    test(`${id} never answers hostile input with a 5xx, a leak, or a write after a 4xx`, async () => {
      const headers: Record<string, string> = route.auth === "agent"
        ? { authorization: `Bearer ${agentKey}` }
        : { authorization: `Bearer ${t.project.secret}`, "x-svc-project": t.project.id };
      await checkProperty(
        fc.asyncProperty(attempts(id, queryKeys), async (a) => {
          await check(
            t.cloud.handle,
            toRequest(route.method, "http://cloud.test", a, headers),
            () => rowCounts(t.client),
            tally,
            route.mediaType,
          );
        }),
        RUNS,
      );
    });
  }

  test("text the cloud accepts comes back from the inbox exactly as sent", async () => {
    let n = 0;
    await checkProperty(
      fc.asyncProperty(hostileString, hostileString, hostileString, hostileJson, async (eventId, type, agentId, v) => {
        const body = { eventId: `rt${n++}-${eventId}`, type: type || "t", agentId: agentId || "a", payload: { v } };
        const res = await t.sdk("POST", "/v1/events", { body });
        assert.ok(res.status < 500);
        if (res.status >= 300) return;
        const inbox = await t.sdk(
          "GET",
          `/v1/agents/${encodeSegment(body.agentId)}/inbox?cursor=${res.body.inboxId - 1}`,
        );
        const item = inbox.body.items[0];
        assert.deepEqual([item.eventId, item.type, item.agentId], [body.eventId, body.type, body.agentId]);
        assert.deepEqual(item.payload, JSON.parse(JSON.stringify(body.payload)));
      }),
      RUNS,
    );
  });
});

describe("hostile input to every /svc route", () => {
  let svc: Svc;
  let client: Client;
  let agentKey = "";
  before(async () => {
    client = createClient({ url: ":memory:" });
    svc = notesSvc({ storage: client, onAgentIntent: (_intent, payload) => ({ echo: Object.keys(payload).length }) });
    agentKey = (await mint(svc, "alice", [...SCOPES])).key;
    setThrowawayKeyId((await mint(svc, "alice", [])).id);
  });
  after(async () => {
    await svc.close();
    client.close();
  });
  // Refusals on /svc/agent/run are recorded as violations and as activity records by design (the activity's group
  // writer stores a run's record up to 250 ms later, whatever the request then running): count every other table.
  const counts = async () => {
    await svc.violations({ limit: 1 });
    const all = JSON.parse(await rowCounts(client));
    delete all.app_violations;
    delete all.app_activity;
    delete all.app_outbox;
    return JSON.stringify(all);
  };

  for (const route of svcRouteTable()) {
    const id = `${route.method} ${route.path}`;
    test(`${id} never answers hostile input with a 5xx, a leak, or a write after a 4xx`, async () => {
      const headers: Record<string, string> = route.auth === "user"
        ? { "x-user": "alice" }
        : { authorization: `Bearer ${agentKey}` };
      await checkProperty(
        fc.asyncProperty(attempts(id, []), async (a) => {
          await check(svc.handle, toRequest(route.method, BASE, a, headers), counts, new Map());
        }),
        RUNS,
      );
    });
  }
});
