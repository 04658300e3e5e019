#!/usr/bin/env bash
# Lints edge/openapi.yaml with Redocly CLI (the strictest OpenAPI 3.1 linter), installed from npm into
# .local/node on first use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.local/node"
if [ ! -x "$dir/node_modules/.bin/redocly" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --silent @redocly/cli@2.77.0 >/dev/null
fi
cd "$root"
"$dir/node_modules/.bin/redocly" lint edge/openapi.yaml --config redocly.yaml --format=stylish 2>&1 | grep -v '║\|╔\|╚' | sed '/^\s*$/d'
exit "${PIPESTATUS[0]}"
