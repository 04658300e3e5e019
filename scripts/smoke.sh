#!/usr/bin/env bash
# End-to-end check of what `make run` serves: start the local services and `shariah all` on spare ports,
# then walk health, docs, the key flow and the usage history with curl. Stops what it started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/services.sh up >/dev/null
PORT=${SMOKE_PORT:-18090}
MCP_PORT=${SMOKE_MCP_PORT:-18091}
export SHARIAH_HTTP_ADDR=127.0.0.1:$PORT SHARIAH_MCP_ADDR=127.0.0.1:$MCP_PORT SHARIAH_USAGE_FLUSH_INTERVAL=200ms
export SHARIAH_CLICKHOUSE_URL=clickhouse://127.0.0.1:${CLICKHOUSE_PORT:-9000}/shariah_smoke
# Its own Redis database, emptied first: state a previous run left (the SEC ingester's checkpoints, say)
# must not make this run skip work whose results live in a ClickHouse that may be new.
SMOKE_REDIS_DB=${SMOKE_REDIS_DB:-9}
export SHARIAH_REDIS_URL=redis://127.0.0.1:${REDIS_PORT:-6379}/$SMOKE_REDIS_DB
redis-cli -h 127.0.0.1 -p "${REDIS_PORT:-6379}" -n "$SMOKE_REDIS_DB" flushdb >/dev/null
# Ingesters on recorded documents only (no network): the SEC fixtures as a file:// mirror, one RSS feed.
export SHARIAH_SEC_DATA_URL=file://$root/ingest/sec/testdata SHARIAH_SEC_WWW_URL=file://$root/ingest/sec/testdata
export SHARIAH_SEC_SYMBOLS='*' SHARIAH_PRICE_SYMBOLS= SHARIAH_NEWS_FEEDS="fixture|file://$root/ingest/news/testdata/rss.xml"
bin/shariah migrate
bin/shariah load --default --problems 0 >/dev/null
bin/shariah all 2>.local/smoke.log & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
base=http://127.0.0.1:$PORT
for _ in $(seq 1 100); do curl -fs "$base/api/health" >/dev/null && break; sleep 0.1; done
fail() { echo "smoke: $*" >&2; exit 1; }
curl -fs "$base/api/health" | grep -q '"status":"ok"' || fail "health not ok"
curl -fs "$base/docs" | grep -q swagger-ui-bundle.js || fail "/docs"
curl -fs "$base/redoc" | grep -q redoc.standalone.js || fail "/redoc"
curl -fs "$base/openapi.json" | grep -q '"openapi":"3.1.0"' || fail "openapi.json"
email="smoke$(date +%s%N)@example.com"
key=$(curl -fs -X POST "$base/api/keys/generate" -H 'Content-Type: application/json' -d "{\"email\":\"$email\"}" \
  | sed -e 's/.*"api_key":"\([^"]*\)".*/\1/')
# New keys are ht_ (the SHARIAH_KEY_PREFIX default): the clients check ^ht_[A-Za-z0-9]+.
[[ $key =~ ^ht_[A-Za-z0-9]{40}$ ]] || fail "no ht_ key issued (got ${key:0:4}...)"
curl -fs -H "X-API-Key: $key" "$base/api/auth/me" | grep -q '"plan":"free"' || fail "auth/me"
curl -fs -H "X-API-Key: $key" "$base/api/keys/plans" >/dev/null || fail "plans"
curl -fs -H "X-API-Key: $key" "$base/api/database/search?q=apple" | grep -q '"symbol":"AAPL"' || fail "search"
curl -fs -H "X-API-Key: $key" "$base/api/quote/AAPL" | grep -q '"price":' || fail "quote"
sleep 1 # the usage writer flushes every 200ms
curl -fs -H "X-API-Key: $key" "$base/api/auth/me/usage/daily" | grep -q '"requests":[1-9]' || fail "usage not visible in /api/auth/me/usage/daily"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/auth/me")
[ "$code" = 401 ] || fail "no key gave $code"
curl -fs -X POST "http://127.0.0.1:$MCP_PORT/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
  | grep -q '"serverInfo"' || fail "MCP initialize on /mcp"
ekey=$(bin/shariah keys create --email smoke-ops@example.com --plan enterprise 2>/dev/null)
run=$(curl -fs -X POST "$base/api/screen-bulk" -H "X-API-Key: $ekey" -H 'Content-Type: application/json' -d '{"index_name":"SP500"}' \
  | sed -e 's/.*"run_id":"\([^"]*\)".*/\1/')
[ -n "$run" ] || fail "bulk run not queued"
for _ in $(seq 1 200); do
  st=$(curl -fs "$base/api/screen-bulk/status?run_id=$run" -H "X-API-Key: $ekey")
  grep -q '"status":"completed"' <<<"$st" && break
  sleep 0.1
done
grep -q '"status":"completed"' <<<"$st" || fail "bulk run did not complete: $st"
for _ in $(seq 1 100); do curl -fs -H "X-API-Key: $ekey" "$base/api/filings/EXA" | grep -q '"form":"10-Q"' && break; sleep 0.1; done
curl -fs -H "X-API-Key: $ekey" "$base/api/filings/EXA" | grep -q '"form":"10-Q"' || fail "SEC ingester: no filings for EXA"
# The ingester stores filings before the facts and the trajectory: wait for the trajectory as well.
for _ in $(seq 1 100); do curl -fs -H "X-API-Key: $ekey" "$base/api/insights/EXA/trajectory" | grep -q '"debt_to_assets"' && break; sleep 0.1; done
curl -fs -H "X-API-Key: $ekey" "$base/api/insights/EXA/trajectory" | grep -q '"debt_to_assets"' || fail "trajectory"
for _ in $(seq 1 50); do curl -fs -H "X-API-Key: $ekey" "$base/api/news?source=fixture" | grep -q '"total":[1-9]' && break; sleep 0.1; done
curl -fs -H "X-API-Key: $ekey" "$base/api/news?source=fixture" | grep -q '"total":[1-9]' || fail "news ingester: no articles"
grep -q "$key" .local/smoke.log && fail "a full key appears in the log"
grep -q "$ekey" .local/smoke.log && fail "a full key appears in the log"
echo "smoke: ok (health, docs, key flow, search, quote, usage history, bulk run, SEC and news ingesters, MCP over HTTP)"
