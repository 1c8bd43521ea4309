/**
 * What `createSvc` builds on the app's storage, once it is open: one assembly per mode (`assemble_local.ts`,
 * `assemble_hybrid.ts`, `assemble_cloud.ts`), each building exactly the parts it runs, in dependency order, and
 * closing them in reverse.
 *
 * @module
 */
import { assembleLocal } from "./assemble_local.ts";
import { assembleHybrid } from "./assemble_hybrid.ts";
import { assembleCloud } from "./assemble_cloud.ts";
import type { CloudLinkBuilt, OpenedSvc, SvcBuilt } from "./svc_parts.ts";

/**
 * Opens the app's storage and builds, in order, everything its mode runs on it; closes the storage again if a step
 * fails.
 *
 * @param built The checked configuration and what was built before storage.
 * @param link The cloud's client and policy (hybrid and cloud modes; `null` in local mode).
 * @returns The parts, for the handler's dependencies and for {@linkcode closeSvc}.
 */
export async function openSvc(built: SvcBuilt, link: CloudLinkBuilt | null): Promise<OpenedSvc> {
  const { config } = built;
  if (config.mode === "hybrid" && link !== null) return await assembleHybrid(built, config, link);
  if (config.mode === "cloud" && link !== null) return await assembleCloud(built, config, link);
  if (config.mode === "hybrid" || config.mode === "cloud") throw new Error(`${config.mode} mode needs its cloud link`);
  return await assembleLocal(built, config);
}

/**
 * Closes what {@linkcode openSvc} built, in reverse order: retention, pending violations, the cloud link's parts, the
 * keys, the last violations, then the storage.
 *
 * @param parts What was opened.
 * @returns When all is closed.
 */
export async function closeSvc(parts: OpenedSvc): Promise<void> {
  await parts.close();
}
