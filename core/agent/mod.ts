/**
 * The agent side: a client for an app's `/svc/agent/*` routes and the cloud's inbox.
 *
 * @module
 */
export { AgentClient, keyRefusalOf } from "./agent_client.ts";
