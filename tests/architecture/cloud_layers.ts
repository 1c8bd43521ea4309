/**
 * The cloud's layering, written down: which of the cloud's feature folders (`cloud/NAME/`, each a room behind its
 * `mod.ts`) may import which. `import_graph.ts` fails on an import between two of them that this list does not
 * allow, and on a feature folder missing from it. The cloud's own files outside every feature folder (`cloud/*.ts`,
 * `cloud/cli/`) are the assembly: they may import any feature.
 *
 * The floors, from the bottom (each feature imports only features on floors below it):
 * 1. `routes` (the `/v1` route kind and its auth) and `feed` (the long polls' waiters, the revocation feed);
 * 2. `audit` (every feature's writes record an entry in their own transaction);
 * 3. `projects`, `operators`, `keys`;
 * 4. `inbox` (events of a project), `violations` (auto-revoke revokes keys), `apps` (connected apps of a project),
 *    `approvals` (the steps of approvals apps report, each audited);
 *    `activity` (what agents did: the runs apps ship);
 * 5. `dashboard`, `operations` (metrics) and `database` (the one ordered list of every feature's migrations).
 *
 * Add an arrow here only with the import that needs it, and never one that points up a floor.
 *
 * @module
 */

/** Each cloud feature folder and the feature folders it may import. */
export const CLOUD_LAYERS: Readonly<Record<string, readonly string[]>> = {
  routes: [],
  feed: [],
  audit: ["routes"],
  projects: ["audit", "routes"],
  operators: ["audit"],
  keys: ["audit", "feed", "routes"],
  inbox: ["audit", "feed", "projects", "routes"],
  violations: ["audit", "feed", "keys", "projects", "routes"],
  approvals: ["audit", "routes"],
  apps: ["keys", "projects", "routes"],
  activity: ["projects", "routes"],
  operations: ["apps", "inbox", "keys", "routes"],
  dashboard: ["activity", "approvals", "apps", "audit", "feed", "inbox", "keys", "operators", "projects", "violations"],
  database: ["activity", "approvals", "apps", "audit", "feed", "inbox", "keys", "operators", "projects", "violations"],
};
