// Seeds a project through the cloud's own /v1 routes, as an app would: a
// manifest, keys of two users, violations spread over 30 days, inbox events, the billing key's activity over 7 days.
import { ACTIVITY_OUTCOMES } from "../../../core/contract/mod.ts";
import { activityRecord } from "../../fixtures/activity_records.ts";

export interface Seeded {
  projectId: string;
  secret: string;
  agentId: string;
  violations: number;
  /** The id of the key with activity (runs of every outcome over the last 7 days). */
  activeKeyId: string;
  keys: { support: string; billing: string };
}

export async function seedProject(url: string, projectId: string, secret: string): Promise<Seeded> {
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${secret}`, "x-svc-project": projectId, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  await call("PUT", "/v1/sdk/intents", {
    scopes: ["orders:read", "orders:write"],
    intents: [
      {
        name: "orders.refund",
        title: "Refund an order",
        requiredScopes: ["orders:write"],
        input: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
        output: { type: "object", properties: { refunded: { type: "boolean" } } },
      },
      {
        name: "orders.list",
        title: "List orders",
        requiredScopes: ["orders:read"],
        input: { type: "object" },
        output: { type: "object" },
      },
    ],
  });
  const support = await call("POST", "/v1/sdk/keys", { userId: "alice", name: "support-bot", scopes: ["orders:read"] });
  const billing = await call("POST", "/v1/sdk/keys", {
    userId: "bob",
    name: "billing-agent",
    scopes: ["orders:read", "orders:write"],
  });
  const old = await call("POST", "/v1/sdk/keys", { userId: "bob", name: "old-script", scopes: [] });
  await fetch(`${url}/v1/sdk/keys/${old.id}?userId=bob`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${secret}`, "x-svc-project": projectId },
  });
  const kinds = [
    ["FORBIDDEN_SCOPE", "warning"],
    ["UNKNOWN_INTENT", "info"],
    ["REVOKED_KEY", "severe"],
    ["INTENT_VALIDATION_ERROR", "info"],
  ] as const;
  const now = Date.now();
  let violations = 0;
  // Deterministic spread: more in the last day, some over 30 days.
  for (let i = 0; i < 90; i++) {
    const [kind, severity] = kinds[(i * 7) % kinds.length];
    const ago = i < 60 ? (i * 23 % 24) * 3_600_000 + i * 1000 : ((i - 60) % 30) * 86_400_000 + 3_600_000;
    await call("POST", "/v1/sdk/violations", {
      violation: {
        apiKeyId: i % 3 ? support.id : billing.id,
        userId: i % 3 ? "alice" : "bob",
        intent: "orders.refund",
        kind,
        severity,
        message: `${kind.toLowerCase().replaceAll("_", " ")} on orders.refund`,
        at: new Date(now - ago).toISOString(),
      },
    });
    violations++;
  }
  for (let i = 0; i < 3; i++) {
    await call("POST", "/v1/events", {
      eventId: `evt_${i}`,
      type: "order.paid",
      agentId: support.agentId,
      // The last one long enough to be shown as its start, opening to the whole payload.
      payload: {
        orderId: `ord_${100 + i}`,
        amount: 1999 + i,
        ...(i === 2 ? { lines: [{ sku: "tea-250g", qty: 2 }, { sku: "mug-blue", qty: 1 }] } : {}),
      },
    });
  }
  // The billing key's runs, every outcome, spread over 7 days, shipped as an app's outbox would.
  const activity = Array.from({ length: 120 }, (_, i) => {
    const outcome = ACTIVITY_OUTCOMES[i % ACTIVITY_OUTCOMES.length];
    return activityRecord(now - (i * 83 % 168) * 3_600_000 - i * 1000, {
      keyId: billing.id,
      userId: "bob",
      agentId: billing.agentId,
      intent: i % 2 ? "orders.refund" : "orders.list",
      via: i % 3 ? "http" : "mcp",
      outcome,
      status: { ok: 200, refused: 403, invalid: 400, failed: 500, pending_approval: 202 }[outcome],
      ...(outcome === "ok" || outcome === "pending_approval" ? {} : { code: "FORBIDDEN_SCOPE" }),
      ...(i % 4 === 0 ? { client: "A desktop assistant with a long client name" } : {}),
    });
  });
  await call("POST", "/v1/sdk/activity/batch", { activity });
  // An app instance following the revocation feed, as it identifies itself on its poll.
  // Approvals as a hybrid app reports them: one pending, one denied with a reason, one expired.
  const approvalAt = (ms: number) => new Date(now + ms).toISOString();
  const approval = (n: number, intent: string) => ({
    approvalId: `apr_01JAPPR0VA1SEED00000000${String(n).padStart(3, "0")}`,
    intent,
    keyId: support.id,
    userId: "alice",
    agentId: support.agentId,
    status: "pending",
    createdAt: approvalAt(-3_600_000 + n * 1000),
    expiresAt: approvalAt(n === 3 ? -60_000 : 86_400_000),
    decidedAt: null,
  });
  await call("POST", "/v1/sdk/approvals/batch", {
    approvals: [
      approval(1, "orders.refund"),
      approval(2, "orders.refund"),
      { ...approval(2, "orders.refund"), status: "denied", decidedAt: approvalAt(-60_000), reason: "Not this one" },
      approval(3, "orders.refund"),
    ],
  });
  const poll = await fetch(`${url}/v1/sdk/keys/revocations?after=0`, {
    headers: {
      authorization: `Bearer ${secret}`,
      "x-svc-project": projectId,
      "x-svc-instance": "01JD5Z7Q8R9S0T1V2W3X4Y5Z6A",
      "x-svc-app-label": "acme-shop web",
      "x-svc-mode": "hybrid",
      "x-svc-sdk-version": "1.0.0",
    },
  });
  if (poll.status !== 200) throw new Error(`feed poll: ${poll.status}`);
  await poll.body?.cancel();
  return {
    projectId,
    secret,
    agentId: support.agentId,
    violations,
    activeKeyId: billing.id,
    keys: { support: support.key, billing: billing.key },
  };
}
