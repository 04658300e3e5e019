// Drives the MCP server with the official TypeScript SDK client: node client.mjs stdio <binary> | http <url> | sse <url>.
// Lists tools (27) and resources (7), calls screen_stock, calculate_zakat and bulk_screen (list_indices), and
// reads the glossary; exits non-zero with a message on any difference.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

const [mode, target] = process.argv.slice(2);
const fail = (msg) => { console.error(`mcp ${mode}: ${msg}`); process.exit(1); };
let transport;
if (mode === "stdio") transport = new StdioClientTransport({ command: target, args: ["mcp"], env: process.env, stderr: "ignore" });
else if (mode === "http") transport = new StreamableHTTPClientTransport(new URL(target));
else if (mode === "sse") transport = new SSEClientTransport(new URL(target));
else fail("usage: client.mjs stdio|http|sse <binary|url>");

const client = new Client({ name: "sdk-check", version: "1.0.0" });
await client.connect(transport);
const instr = client.getInstructions() || "";
if (!instr.includes("not a religious ruling")) fail("instructions do not say verdicts are not a religious ruling");
const { tools } = await client.listTools();
if (tools.length !== 27) fail(`${tools.length} tools, want 27`);
for (const t of tools) {
  const a = t.annotations || {};
  for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
    if (typeof a[k] !== "boolean") fail(`${t.name}: annotation ${k} not set`);
  }
  if (!t.outputSchema) fail(`${t.name}: no output schema`);
}
const { resources } = await client.listResources();
if (resources.length !== 7) fail(`${resources.length} resources, want 7`);

const screen = await client.callTool({ name: "screen_stock", arguments: { symbol: "MSFT" } });
if (screen.isError || !screen.structuredContent || screen.structuredContent.symbol !== "MSFT" || !screen.structuredContent.compliance_status) {
  fail(`screen_stock: ${JSON.stringify(screen).slice(0, 300)}`);
}
const zakat = await client.callTool({ name: "calculate_zakat", arguments: { holdings: [{ symbol: "AAPL", market_value: 10000 }], cash: 2000, gold_price_per_gram: 100 } });
if (zakat.isError || zakat.structuredContent.zakat_due !== true || Number(zakat.structuredContent.amount_owed) !== 300) {
  fail(`calculate_zakat: ${JSON.stringify(zakat).slice(0, 300)}`);
}
const bulk = await client.callTool({ name: "bulk_screen", arguments: { action: "list_indices" } });
if (bulk.isError || !(bulk.structuredContent.indices || []).length) fail(`bulk_screen: ${JSON.stringify(bulk).slice(0, 300)}`);
const bad = await client.callTool({ name: "screen_stock", arguments: { symbol: "NOPE123" } });
if (!bad.isError) fail("an unknown symbol did not come back as isError");
const gl = await client.readResource({ uri: "shariah://education/glossary" });
const terms = JSON.parse(gl.contents[0].text).terms;
if (!terms || terms.length === 0) fail("empty glossary");
await client.close();
console.log(`mcp ${mode}: ok (27 tools, 7 resources, screen_stock ${screen.structuredContent.compliance_status}, zakat ${zakat.structuredContent.amount_owed}, ${terms.length} glossary terms)`);
