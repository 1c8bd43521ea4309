// The official MCP TypeScript SDK against /svc/mcp with an agent key (README: "Connect an MCP client").
// Run: SVC_MCP_URL=http://127.0.0.1:8000/svc/mcp SVC_KEY=svc_live_… node examples/mcp_sdk_client.mjs
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.SVC_MCP_URL ?? "https://notes.example.com/svc/mcp");
const transport = new StreamableHTTPClientTransport(url, {
  requestInit: { headers: { authorization: `Bearer ${process.env.SVC_KEY}` } },
});
const client = new Client({ name: "my-agent", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools(); // the intents this key may run
console.log("tools:", tools.map((tool) => tool.name).join(", "));
const result = await client.callTool({ name: "notes.create", arguments: { title: "Buy milk" } });
if (result.isError) console.error(result.content); // e.g. INTENT_VALIDATION_ERROR with the issues
else console.log("created:", JSON.stringify(result.structuredContent));
await client.close();
