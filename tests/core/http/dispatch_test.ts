// createHandler's errorAnswer: what is thrown (an unknown path, a refused caller) answered in the side's own form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { createHandler, json, routeDefiner } from "../../../core/http/mod.ts";
import { SvcError } from "../../../core/errors/mod.ts";

type Demo = { callers: { none: null; gate: string }; deps: null };
const defineRoute = routeDefiner<Demo>();
const routes = [
  defineRoute({
    method: "GET",
    path: "/demo/page",
    auth: "gate",
    summary: "A page behind a gate",
    mediaType: "text/plain",
    responses: { 200: null },
    run: ({ caller }) => Promise.resolve(new Response(`hello ${caller}`)),
  }),
];
const authenticate = {
  none: () => null,
  gate: (req: Request) => {
    if (req.headers.get("x-pass") !== "yes") throw new SvcError("UNAUTHORIZED", "No pass");
    return "visitor";
  },
};
const base = { prefix: "/demo", routes, authenticate, deps: Promise.resolve(null), bodyLimit: 1024 };

test("createHandler answers what is thrown with the contract's envelope by default", async () => {
  const handle = createHandler<Demo>(base);
  const res = await handle(new Request("http://x/demo/nope"));
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, "NOT_FOUND");
});

test("createHandler answers an unknown path and a refused caller through errorAnswer when given", async () => {
  const seen: string[] = [];
  const handle = createHandler<Demo>({
    ...base,
    errorAnswer(error, req) {
      seen.push(`${(error as SvcError).code} ${new URL(req.url).pathname}`);
      return new Response("refused, in the side's own words", { status: 303, headers: { location: "/demo/in" } });
    },
  });
  assert.equal((await handle(new Request("http://x/demo/nope"))).status, 303);
  const refused = await handle(new Request("http://x/demo/page"));
  assert.equal(refused.headers.get("location"), "/demo/in");
  assert.equal(await refused.text(), "refused, in the side's own words");
  assert.deepEqual(seen, ["NOT_FOUND /demo/nope", "UNAUTHORIZED /demo/page"]);
  const served = await handle(new Request("http://x/demo/page", { headers: { "x-pass": "yes" } }));
  assert.equal(await served.text(), "hello visitor");
});

// Issue 41: a route may return its refusal instead of throwing it (a throw costs a server each `await` it crosses).
test("a refusal a route returns is answered as a thrown one, and its route's `answered` is told of it", async () => {
  const told: { status: number; error: unknown }[] = [];
  const refusal = new SvcError("FORBIDDEN_SCOPE", "Not for this caller", { details: { missingScopes: ["x"] } });
  const refusing = defineRoute({
    method: "GET",
    path: "/demo/refused",
    auth: "gate",
    summary: "Refuses every caller",
    responses: { 403: null },
    run: () => Promise.resolve(refusal),
    answered: ({ response, error }) => told.push({ status: response.status, error }),
  });
  const thrown: unknown[] = [];
  const handle = createHandler<Demo>({
    ...base,
    routes: [refusing],
    errorAnswer(error) {
      thrown.push(error);
      return new Response(JSON.stringify({ code: (error as SvcError).code }), { status: (error as SvcError).status });
    },
  });
  const res = await handle(new Request("http://x/demo/refused", { headers: { "x-pass": "yes" } }));
  assert.equal(res.status, 403);
  assert.deepEqual(await res.json(), { code: "FORBIDDEN_SCOPE" });
  assert.deepEqual(thrown, [refusal], "answered through errorAnswer, as if thrown");
  assert.deepEqual(told, [{ status: 403, error: refusal }]);
  const envelope = await createHandler<Demo>({ ...base, routes: [refusing] })(
    new Request("http://x/demo/refused", { headers: { "x-pass": "yes" } }),
  );
  assert.equal(envelope.status, 403);
  assert.deepEqual(await envelope.json(), {
    ok: false,
    error: { code: "FORBIDDEN_SCOPE", message: "Not for this caller", details: { missingScopes: ["x"] } },
  });
});

// Issue 41: an authenticator may return its refusal instead of throwing it (a refused key is answered at the rate an
// attacker sends it, and a throw costs each `await` it crosses).
test("a refusal an authenticator returns is answered as a thrown one: counted per address, the route never runs", async () => {
  const ran: string[] = [];
  const told: number[] = [];
  const observed: { status: number; caller: unknown }[] = [];
  const refused: string[] = [];
  const refusal = new SvcError("UNAUTHORIZED", "No pass");
  const gated = defineRoute({
    method: "GET",
    path: "/demo/gated",
    auth: "gate",
    summary: "Behind a gate that returns its refusals",
    mediaType: "text/plain",
    responses: { 200: null },
    run: ({ caller }) => Promise.resolve(new Response(`hello ${ran.push(String(caller))}`)),
    answered: ({ response }) => told.push(response.status),
  });
  let budget = 1;
  const handle = createHandler<Demo>({
    ...base,
    routes: [gated],
    authenticate: {
      none: () => null,
      gate: (req: Request) => req.headers.get("x-pass") === "yes" ? "visitor" : refusal,
    },
    refusalsPerAddress: {
      limit: {
        refused(req) {
          refused.push(new URL(req.url).pathname);
          if (budget-- <= 0) throw new SvcError("RATE_LIMITED", "Too many refused credentials");
        },
      },
      counted: ["gate"],
    },
    observe: (_route, status, _seconds, caller) => observed.push({ status, caller }),
  });
  const first = await handle(new Request("http://x/demo/gated"));
  assert.equal(first.status, 401);
  assert.deepEqual(await first.json(), { ok: false, error: { code: "UNAUTHORIZED", message: "No pass" } });
  assert.equal((await handle(new Request("http://x/demo/gated"))).status, 429, "past the address's budget");
  assert.deepEqual(refused, ["/demo/gated", "/demo/gated"]);
  assert.deepEqual(ran, [], "the route never ran for a refused caller");
  assert.deepEqual(told, [], "nor was its `answered` told (no caller)");
  assert.deepEqual(observed, [{ status: 401, caller: undefined }, { status: 429, caller: undefined }]);
  const served = await handle(new Request("http://x/demo/gated", { headers: { "x-pass": "yes" } }));
  assert.equal(await served.text(), "hello 1");
  assert.deepEqual(ran, ["visitor"]);
});

// `/svc/mcp`'s cost: a route may take a body as read when its schema would pass it as it is, without the parse's copy.
test("a body the route takes as read reaches it as read; any other is parsed and checked with its schema", async () => {
  const offered: unknown[] = [];
  const ran: unknown[] = [];
  const named = defineRoute({
    method: "POST",
    path: "/demo/named",
    auth: "none",
    summary: "Takes a name",
    body: z.object({ name: z.string() }),
    takesBodyAsRead(read) {
      offered.push(read);
      return typeof read === "object" && read !== null && Object.keys(read).join() === "name" &&
        typeof (read as { name: unknown }).name === "string";
    },
    responses: { 200: z.object({ name: z.string() }) },
    run({ body }) {
      ran.push(body);
      return Promise.resolve(json(body));
    },
  });
  const handle = createHandler<Demo>({ ...base, routes: [named] });
  const post = (body: unknown) =>
    handle(
      new Request("http://x/demo/named", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
  assert.deepEqual(await (await post({ name: "a" })).json(), { name: "a" });
  assert.equal(ran[0], offered[0], "the very value read, not a copy");
  const refused = await post({ name: "a", nmae: "b" });
  assert.equal(refused.status, 400);
  assert.deepEqual((await refused.json()).error.details.issues, [
    { path: "nmae", message: 'Unknown field "nmae"; did you mean "name"?' },
  ]);
  assert.equal(ran.length, 1, "a body not taken as read is checked as any route's");
  assert.deepEqual(await (await post({ name: "b" })).json(), { name: "b" });
  assert.equal(ran[1], offered[2]);
});
