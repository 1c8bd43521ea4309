/**
 * `GET`/`PUT /v1/sdk/policy`: a project's auto-revoke policy and retention.
 *
 * @module
 */
import { errorEnvelopeSchema } from "../../core/contract/mod.ts";
import { SvcError } from "../../core/errors/mod.ts";
import { json } from "../../core/http/mod.ts";
import { sdkActor } from "../audit/mod.ts";
import { policyChangeSchema, policyViewSchema } from "./project_policy.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { ViolationService } from "./violation_service.ts";

const defineRoute = cloudRouteDefiner<{ violations: ViolationService }>();

/** The policy routes. */
export const policyRoutes = [
  defineRoute({
    name: "getPolicy",
    method: "GET",
    path: "/v1/sdk/policy",
    auth: "sdk",
    summary: "Read the project's auto-revoke policy, retention and bounds of a key's lifetime",
    responses: { 200: policyViewSchema },
    async run({ caller }, { violations }) {
      return json(await violations.policy(caller.projectId));
    },
  }),
  defineRoute({
    name: "putPolicy",
    method: "PUT",
    path: "/v1/sdk/policy",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Change the project's auto-revoke policy (null turns it off), retention or bounds of a key's " +
      "lifetime (keyLifetime { defaultDays, maxDays }, null clears them); absent fields stay",
    body: policyChangeSchema,
    // 404: the project was deleted after the request was authenticated.
    responses: { 200: policyViewSchema, 404: errorEnvelopeSchema },
    async run({ req, caller, body }, { violations }) {
      const policy = await violations.changePolicy(caller.projectId, body, sdkActor(req));
      if (policy === null) throw new SvcError("NOT_FOUND", "No such project");
      return json(policy);
    },
  }),
];
