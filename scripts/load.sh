#!/usr/bin/env bash
# make load: wrk on loopback against the same binary, same run:
#   /bench/constant   a bare constant-JSON route (no key, no meter)
#   /bench/metered    the same body behind the key check and the Lua meter (1 token per request),
#                     with the usage event written to ClickHouse
#   /api/keys/plans   a real metered API route (0 tokens: the meter's read-only path)
#   /api/quote/AAPL   a metered (2 tokens), cached quote from Redis through rueidis client-side caching
#   /api/screen/MSFT  a metered (5 tokens) cached screening result (screened once before the run)
# It also times a full load of the shared data set when ../shared/data (or SHARIAH_DATA_DIR) exists.
# and prints each throughput and the ratio metered/constant. On 2 cores wrk competes with the server,
# so the ratio is the figure to quote, not the absolute rates.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
WITH_WRK=1 scripts/install-services.sh
scripts/services.sh up >/dev/null
PORT=${LOAD_PORT:-18080}
DURATION=${LOAD_DURATION:-10s}
CONNS=${LOAD_CONNS:-50}
go build -o bin/shariah ./cmd/shariah
export SHARIAH_HTTP_ADDR=127.0.0.1:$PORT SHARIAH_ACCESS_LOG=false SHARIAH_BENCH_ROUTES=true SHARIAH_LOG_LEVEL=warn
# The enterprise key's rate limit stays in the path (the GCRA runs in every charge) but never refuses.
export SHARIAH_RATE_LIMITS="enterprise=1000000/1000000" SHARIAH_USAGE_SPOOL_DIR="${SHARIAH_USAGE_SPOOL_DIR:-$root/.local/load-usage-spool}"
bin/shariah migrate
bin/shariah load --default --problems 0 >/dev/null
DATA=${SHARIAH_DATA_DIR:-$root/../shared/data}
if [ -d "$DATA" ]; then
  t0=$(date +%s.%N)
  bin/shariah load --shared "$DATA" --problems 0 | sed 's/^/load: /'
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "full shared-data load (process start to end): %.2f s\n", b-a}'
fi
KEY=$(bin/shariah keys create --email load@example.com --plan enterprise 2>/dev/null)
bin/shariah serve & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/api/health" >/dev/null && break; sleep 0.1; done
rps() { # path [header]
  local out
  if [ $# -gt 1 ]; then out=$(wrk -t1 -c"$CONNS" -d"$DURATION" -H "$2" "http://127.0.0.1:$PORT$1")
  else out=$(wrk -t1 -c"$CONNS" -d"$DURATION" "http://127.0.0.1:$PORT$1"); fi
  if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers on $1:" >&2; echo "$out" >&2; exit 1; fi
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}
rps /bench/constant >/dev/null # warm-up
c=$(rps /bench/constant)
m=$(rps /bench/metered "X-API-Key: $KEY")
p=$(rps /api/keys/plans "X-API-Key: $KEY")
q=$(rps /api/quote/AAPL "X-API-Key: $KEY")
curl -fs -X POST -H "X-API-Key: $KEY" "http://127.0.0.1:$PORT/api/screen/MSFT" >/dev/null
sc=$(rps /api/screen/MSFT "X-API-Key: $KEY")
echo "constant JSON        : $c req/s"
echo "metered (1 token)    : $m req/s"
echo "GET /api/keys/plans  : $p req/s"
echo "GET /api/quote/AAPL  : $q req/s"
echo "GET /api/screen/MSFT : $sc req/s (cached result)"
awk -v c="$c" -v m="$m" -v p="$p" -v q="$q" -v sc="$sc" 'BEGIN {printf "ratio metered/constant: %.2f; plans/constant: %.2f; quote/constant: %.2f; cached screen/constant: %.2f\n", m/c, p/c, q/c, sc/c}'
# Show the meter kept count: tokens used by the load key this month.
curl -fs -H "X-API-Key: $KEY" "http://127.0.0.1:$PORT/api/auth/me" | sed -e 's/.*"tokens_used":\([0-9]*\).*/tokens charged to the load key this month: \1/'
echo
