// Spawns an MCP server over stdio with the TypeScript SDK's client, lists
// its tools and calls one. Usage: node mcp_check.mjs REQUEST_JSON, where
// the request is {"command", "args", "tool", "arguments"}; prints
// {"tools": [names], "result": the tool's result} as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const req = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({ command: req.command, args: req.args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "adsync-mcp-check", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: req.tool, arguments: req.arguments });
await client.close();
process.stdout.write(JSON.stringify({ tools: tools.map((t) => t.name), result }));
