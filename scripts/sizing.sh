#!/usr/bin/env bash
# make sizing: the per-core figures behind docs/deploy.md's sizing table, measured on this machine.
#
# The process under test runs alone on one core (SIZING_CORE, default 0, `taskset`); wrk, Redis,
# ClickHouse and everything else on the others (SIZING_REST, default 1). Besides the wall-clock rate,
# every run reads the CPU time the process under test, Redis and ClickHouse used (/proc/PID/stat), so the
# figures are also per CPU-second: that is what a core of each tier does, even when the process under
# test was not saturated because wrk or Redis on the other core was the limit. Other work on the machine
# moves the figures, so each is repeated (SIZING_REPS, default 5; the runs of a repetition interleaved)
# and reported as the median with the lowest and highest.
#
#  1. Edge: `serve` with the shared data set loaded and SHARIAH_BENCH_ROUTES=true, wrk with 1 thread and
#     SIZING_CONNS connections (default 50) for SIZING_DURATION per run (default 5s), an enterprise key:
#     the constant route (no key, no meter), the metered constant route (1 token), a quote, a cached
#     screening, search (one query, then random two-letter queries and pages, the memo mostly missing)
#     and suggest. Token leases on (the default); then the metered route again with leases off
#     (SHARIAH_METER_LEASES=false), which gives Redis's CPU per meter script call; and the quote with the
#     access log on (the measurements above run with it off, as `make load` does). The edges' own usage
#     writer ships every request's event to ClickHouse meanwhile: ClickHouse's CPU per event is read too,
#     and the events counted against wrk's requests.
#  2. Worker: `worker` on the core under test (serve on the others), bulk runs of the S&P 500 with
#     force_refresh, timed from POST /api/screen-bulk to `completed` (status polled every 100 ms), at
#     SHARIAH_BULK_CONCURRENCY 4 (the default) and 16.
#  3. ClickHouse: the usage_events table (migrated into a database of its own, sizing_usage) on the core
#     under test, inserts of generated rows shaped like the service's (random UUIDv7-like request ids,
#     2,000 keys, the route templates and costs) in batches of 5,000, SIZING_CH_CLIENTS clients at once
#     (default 2) with clickhouse-client; CPU counted until 5 s after the last insert (merges). Then the
#     bytes per row on disk: one copy of the rows in a fresh table, after OPTIMIZE ... FINAL.
#  4. Memory: Redis bytes per key kind (MEMORY USAGE over a sample), the edge's and worker's RSS.
#  5. Load balancer (when haproxy is installed): deploy/haproxy/haproxy.cfg with this machine's edge as its
#     one server, HAProxy on the core under test (one thread), serve and wrk on the others: requests per
#     HAProxy CPU-second for the constant route and the quote.
#
# Redis and ClickHouse are started by scripts/services.sh on ports of their own (REDIS_PORT 16479,
# CLICKHOUSE_PORT 19300, CLICKHOUSE_HTTP_PORT 18323 unless set; the script refuses ports in use, so it
# never measures another process's server) and stopped at the end. The report is printed and kept in
# .local/sizing/report.txt; the raw figures per run in .local/sizing/*.tsv. About 8-10 minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

REPS=${SIZING_REPS:-5}
DURATION=${SIZING_DURATION:-5s}
CONNS=${SIZING_CONNS:-50}
CORE=${SIZING_CORE:-0}
REST=${SIZING_REST:-1}
CH_BATCHES=${SIZING_CH_BATCHES:-100} # batches of 5,000 rows per repetition
CH_CLIENTS=${SIZING_CH_CLIENTS:-2}
PORT=${SIZING_PORT:-18480}
export REDIS_PORT=${REDIS_PORT:-16479} CLICKHOUSE_PORT=${CLICKHOUSE_PORT:-19300} CLICKHOUSE_HTTP_PORT=${CLICKHOUSE_HTTP_PORT:-18323}
out="$root/.local/sizing"
mkdir -p "$out"
rm -f "$out"/*.tsv
HZ=$(getconf CLK_TCK)

WITH_WRK=1 scripts/install-services.sh
command -v taskset >/dev/null || { echo "sizing: taskset (util-linux) is needed" >&2; exit 1; }
for p in "$REDIS_PORT" "$CLICKHOUSE_PORT" "$CLICKHOUSE_HTTP_PORT" "$PORT" "$((PORT + 1))"; do
  if ss -ltnH "sport = :$p" | grep -q .; then
    echo "sizing: port $p is in use; set REDIS_PORT, CLICKHOUSE_PORT, CLICKHOUSE_HTTP_PORT or SIZING_PORT (it and the next)" >&2
    exit 1
  fi
done

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  scripts/services.sh down >/dev/null || true
}
trap cleanup EXIT
scripts/services.sh up >/dev/null
redis_pid=$(cat .local/redis/redis.pid)
ch_pid=$(cat .local/clickhouse/clickhouse.pid)
taskset -a -cp "$REST" "$redis_pid" >/dev/null
taskset -a -cp "$REST" "$ch_pid" >/dev/null
rcli() { redis-cli -p "$REDIS_PORT" "$@"; }
chq() { clickhouse-client --port "$CLICKHOUSE_PORT" "$@"; }

# ticks PID: CPU time (user + system, all threads) in clock ticks.
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# stats: numbers on stdin -> "median min max"
stats() { sort -g | awk '{a[NR] = $1} END {if (NR == 0) {print "- - -"; exit} m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; print m, a[1], a[NR]}'; }
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
load1() { cut -d' ' -f1 /proc/loadavg; }

export SHARIAH_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export SHARIAH_CLICKHOUSE_URL="clickhouse://127.0.0.1:$CLICKHOUSE_PORT/shariah"
export SHARIAH_USAGE_SPOOL_DIR="$out/spool"
export SHARIAH_LOG_LEVEL=warn
DATA=${SHARIAH_DATA_DIR:-$root/../shared/data}
[ -d "$DATA" ] || { echo "sizing: the shared data set is needed (SHARIAH_DATA_DIR or ../shared/data)" >&2; exit 1; }
DATA=$(cd "$DATA" && pwd)

go build -o bin/shariah ./cmd/shariah
bin/shariah migrate >/dev/null
bin/shariah load --default --problems 0 >/dev/null
bin/shariah load --shared "$DATA" --problems 0 >/dev/null
KEY=$(bin/shariah keys create --email "sizing-$(date +%s)-$$@example.com" --plan enterprise 2>/dev/null)

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) cores, $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(free -g | awk '/^Mem/ {print $2}') GiB, $(uname -r)"
  echo "versions: $(go version | cut -d' ' -f3), Redis $(redis-server --version | sed 's/.* v=\([^ ]*\).*/\1/'), ClickHouse $(chq -q 'SELECT version()'), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "process under test on core $CORE; wrk, Redis, ClickHouse and the rest on core(s) $REST; $REPS repetitions"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/header.txt"

limits="free=1000000/1000000,starter=1000000/1000000,pro=1000000/1000000,enterprise=1000000/1000000"
# start_serve CPUS [ENV=VALUE...]: serve on CPUS; sets SERVE_PID.
start_serve() {
  local cpus=$1
  shift
  env SHARIAH_HTTP_ADDR="127.0.0.1:$PORT" SHARIAH_ACCESS_LOG=false SHARIAH_BENCH_ROUTES=true \
    SHARIAH_RATE_LIMITS="$limits" "$@" taskset -c "$cpus" bin/shariah serve 2>>"${SERVE_LOG:-$out/serve.log}" &
  SERVE_PID=$!
  pids+=("$SERVE_PID")
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/api/health" >/dev/null && return 0; sleep 0.1; done
  echo "sizing: serve did not come up; see $out/serve.log" >&2
  exit 1
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# Random two-letter searches and pages (21 per page): the memo of answers mostly misses.
cat >"$out/search.lua" <<'EOF'
local letters = "abcdefghijklmnopqrstuvwxyz"
math.randomseed(os.time())
request = function()
  local i, j = math.random(26), math.random(26)
  local path = "/api/database/search?q=" .. letters:sub(i, i) .. letters:sub(j, j) ..
    "&limit=21&offset=" .. (math.random(0, 9) * 21)
  return wrk.format("GET", path)
end
EOF
routes=(
  "constant|/bench/constant|constant JSON, no key, no meter"
  "metered|/bench/metered|the same behind key check, meter (1 token), usage event"
  "quote|/api/quote/AAPL|GET /api/quote/AAPL (2 tokens)"
  "screening|/api/screen/MSFT|GET /api/screen/MSFT, cached (5 tokens)"
  "search|/api/database/search?q=apple|GET /api/database/search?q=apple"
  "search_varied|/api/database/search|search, random two letters and pages"
  "suggest|/api/suggest?q=ap|GET /api/suggest?q=ap"
)

# wrkrun NAME PATH FILE: one wrk run on the REST cores; appends
# name rps requests seconds edge_cpu_s redis_cpu_s ch_cpu_s load1 to FILE.
wrkrun() {
  local name=$1 path=$2 file=$3 o e0 r0 c0 e1 r1 c1 args
  args=(-t1 -c"$CONNS" -d"$DURATION" --timeout 10s)
  [ "$name" = constant ] || args+=(-H "X-API-Key: $KEY")
  [ "$name" = search_varied ] && args+=(-s "$out/search.lua")
  e0=$(ticks "$SERVE_PID") r0=$(ticks "$redis_pid") c0=$(ticks "$ch_pid")
  o=$(taskset -c "$REST" wrk "${args[@]}" "http://127.0.0.1:$PORT$path")
  e1=$(ticks "$SERVE_PID") r1=$(ticks "$redis_pid") c1=$(ticks "$ch_pid")
  if grep -q "Non-2xx" <<<"$o"; then
    echo "sizing: FAIL: non-2xx answers on $path:" >&2
    echo "$o" >&2
    exit 1
  fi
  awk -v n="$name" -v hz="$HZ" -v e="$((e1 - e0))" -v r="$((r1 - r0))" -v c="$((c1 - c0))" -v l="$(load1)" '
    / requests in / {req = $1; s = $4; sub(/s,?$/, "", s)}
    /^Requests\/sec/ {rps = $2}
    END {printf "%s %.0f %d %.2f %.2f %.2f %.2f %s\n", n, rps, req, s, e / hz, r / hz, c / hz, l}' <<<"$o" >>"$file"
}

# --- 1. Edge ------------------------------------------------------------------------------------------
echo
echo "1. edge: serve on core $CORE, wrk -t1 -c$CONNS -d$DURATION on core(s) $REST"
# ClickHouse's CPU while idle (its own background work), subtracted from what the usage writer costs it
i0=$(ticks "$ch_pid")
sleep 5
ch_idle=$(($(ticks "$ch_pid") - i0))
rows0=$(chq -q "SELECT count() FROM shariah.usage_events")
chA=$(ticks "$ch_pid") tA=$(date +%s.%N)
start_serve "$CORE"
base="http://127.0.0.1:$PORT"
curl -fsS -o /dev/null -X POST -H "X-API-Key: $KEY" "$base/api/screen/MSFT"
for r in "${routes[@]}"; do
  IFS='|' read -r name path _ <<<"$r"
  DURATION=1s wrkrun "$name" "$path" "$out/warmup.tsv"
done
for rep in $(seq 1 "$REPS"); do
  for r in "${routes[@]}"; do
    IFS='|' read -r name path _ <<<"$r"
    wrkrun "$name" "$path" "$out/edge.tsv"
  done
  echo "  repetition $rep of $REPS done (load $(load1))"
done
EDGE_RSS=$(rss_mb "$SERVE_PID")
stop "$SERVE_PID"

echo "  the metered route with token leases off (one meter script call per request)"
start_serve "$CORE" SHARIAH_METER_LEASES=false
DURATION=1s wrkrun metered /bench/metered "$out/warmup.tsv"
for rep in $(seq 1 "$REPS"); do
  wrkrun metered_noleases /bench/metered "$out/edge.tsv"
done
stop "$SERVE_PID"

echo "  the quote with the access log on (one JSON line per request, written to /dev/null here)"
SERVE_LOG=/dev/null start_serve "$CORE" SHARIAH_ACCESS_LOG=true SHARIAH_LOG_LEVEL=info
DURATION=1s wrkrun quote_accesslog /api/quote/AAPL "$out/warmup.tsv"
for rep in $(seq 1 "$REPS"); do
  wrkrun quote_accesslog /api/quote/AAPL "$out/edge.tsv"
done
stop "$SERVE_PID"

# The usage events of every metered request above, shipped by the edges' writer: wait until they are in.
metered_total=$(awk '$1 != "constant" {n += $3} END {print n}' "$out/warmup.tsv" "$out/edge.tsv")
for _ in $(seq 1 100); do
  rows1=$(chq -q "SELECT count() FROM shariah.usage_events")
  [ $((rows1 - rows0)) -ge "$metered_total" ] && break
  sleep 0.2
done
chB=$(ticks "$ch_pid") tB=$(date +%s.%N)
echo "  usage events written by the edges' usage writer: $((rows1 - rows0)) (metered requests wrk counted, warm-ups included: $metered_total; the rest were in flight when wrk stopped)"

# --- 2. Worker ----------------------------------------------------------------------------------------
echo
echo "2. worker: worker on core $CORE, serve on core(s) $REST, bulk runs of SP500 with force_refresh"
start_serve "$REST"
total_symbols=$(curl -fsS -H "X-API-Key: $KEY" "$base/api/screen-bulk/indices" |
  tr '{' '\n' | sed -n 's/.*"loaded_tickers":\([0-9]*\).*/\1/p' | awk '{n += $1} END {print n + 0}')
for conc in 4 16; do
  SHARIAH_BULK_CONCURRENCY=$conc SHARIAH_RESCREEN_SCHEDULES="" taskset -c "$CORE" bin/shariah worker 2>>"$out/worker.log" &
  wpid=$!
  pids+=("$wpid")
  sleep 1
  for rep in $(seq 0 "$REPS"); do # repetition 0 warms up and is not counted
    w0=$(ticks "$wpid") r0=$(ticks "$redis_pid") t0=$(date +%s.%N)
    resp=$(curl -fsS -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \
      -d '{"index_name":"SP500","force_refresh":true}' "$base/api/screen-bulk")
    id=$(sed -n 's/.*"run_id":"\([^"]*\)".*/\1/p' <<<"$resp")
    n=$(sed -n 's/.*"total":\([0-9]*\).*/\1/p' <<<"$resp")
    st="" body=""
    for _ in $(seq 1 1200); do
      body=$(curl -fsS -H "X-API-Key: $KEY" "$base/api/screen-bulk/status?run_id=$id")
      st=$(sed -n 's/.*"status":"\([a-z]*\)".*/\1/p' <<<"$body")
      case $st in completed | failed | cancelled) break ;; esac
      sleep 0.1
    done
    t1=$(date +%s.%N) w1=$(ticks "$wpid") r1=$(ticks "$redis_pid")
    [ "$st" = completed ] || { echo "sizing: run $id ended $st" >&2; exit 1; }
    [ "$rep" = 0 ] && continue
    # the worker's own time: the run's started_at to finished_at
    s0=$(date -d "$(sed -n 's/.*"started_at":"\([^"]*\)".*/\1/p' <<<"$body")" +%s.%N)
    s1=$(date -d "$(sed -n 's/.*"finished_at":"\([^"]*\)".*/\1/p' <<<"$body")" +%s.%N)
    awk -v c="$conc" -v n="$n" -v t0="$t0" -v t1="$t1" -v s0="$s0" -v s1="$s1" -v w="$((w1 - w0))" -v r="$((r1 - r0))" -v hz="$HZ" -v l="$(load1)" \
      'BEGIN {printf "%s %d %.3f %.2f %.2f %s %.3f\n", c, n, t1 - t0, w / hz, r / hz, l, s1 - s0}' >>"$out/worker.tsv"
  done
  WORKER_RSS=$(rss_mb "$wpid")
  stop "$wpid"
  echo "  SHARIAH_BULK_CONCURRENCY=$conc: $REPS runs done (load $(load1))"
done

# --- 4 (before the server stops). Redis memory per kind of key ---------------------------------------
# kind PATTERN: keys, mean bytes over a sample of up to 300 (MEMORY USAGE ... SAMPLES 0: every element).
kind() {
  local n mean
  rcli --scan --pattern "$1" >"$out/keys.txt"
  n=$(wc -l <"$out/keys.txt")
  mean=$(sed -n '1,300{s/^/MEMORY USAGE /; s/$/ SAMPLES 0/; p}' "$out/keys.txt" | rcli |
    awk '{s += $1; k++} END {if (k) printf "%.0f", s / k; else print 0}')
  printf '%-28s %8d keys %10d bytes each %10.1f MB\n' "$1" "$n" "$mean" "$(awk -v n="$n" -v m="$mean" 'BEGIN {print n * m / 1e6}')"
}
{
  echo "Redis after the runs: $(rcli dbsize) keys, used_memory $(rcli info memory | tr -d '\r' | sed -n 's/^used_memory_human://p')"
  kind 'shr:asset:*'
  kind 'shr:bars:*'
  kind 'shr:fund:*'
  kind 'shr:quote:*'
  kind 'shr:result:*'
  kind 'shr:run:*:items'
  kind 'shr:key:*'
  kind 'shr:meter:*'
} >"$out/redis.txt"
stop "$SERVE_PID"

# --- 5. Load balancer --------------------------------------------------------------------------------
if command -v haproxy >/dev/null; then
  echo
  echo "5. load balancer: HAProxy (one thread) on core $CORE, serve and wrk on core(s) $REST"
  # the compose config with this machine's edge for the replicas found through Docker's DNS
  sed -e 's/^\( *maxconn\) .*/\1 4000\n    nbthread 1/' -e '/^resolvers docker/,/^$/d' -e 's/ resolvers docker init-addr none//' \
    -e 's/server-template .*/server edge1 127.0.0.1:'"$PORT"'/' -e 's/bind :8080/bind 127.0.0.1:'"$((PORT + 1))"'/' \
    -e '/^ *log /d' -e '/option httplog/d' deploy/haproxy/haproxy.cfg >"$out/haproxy.cfg"
  haproxy -c -q -f "$out/haproxy.cfg"
  start_serve "$REST"
  taskset -c "$CORE" haproxy -db -f "$out/haproxy.cfg" >"$out/haproxy.log" 2>&1 &
  LB_PID=$!
  pids+=("$LB_PID")
  for _ in $(seq 1 50); do curl -fs -o /dev/null "http://127.0.0.1:$((PORT + 1))/api/health" && break; sleep 0.1; done
  for rep in $(seq 1 "$REPS"); do
    for r in "constant|/bench/constant" "quote|/api/quote/AAPL"; do
      IFS='|' read -r name path <<<"$r"
      h0=$(ticks "$LB_PID")
      o=$(taskset -c "$REST" wrk -t1 -c"$CONNS" -d"$DURATION" --timeout 10s -H "X-API-Key: $KEY" "http://127.0.0.1:$((PORT + 1))$path")
      h1=$(ticks "$LB_PID")
      grep -q "Non-2xx" <<<"$o" && { echo "sizing: FAIL: non-2xx answers through HAProxy on $path" >&2; exit 1; }
      awk -v n="$name" -v h="$((h1 - h0))" -v hz="$HZ" '/ requests in / {req = $1} /^Requests\/sec/ {rps = $2}
        END {printf "%s %.0f %d %.2f\n", n, rps, req, h / hz}' <<<"$o" >>"$out/lb.tsv"
    done
  done
  stop "$LB_PID"
  stop "$SERVE_PID"
fi

# --- 3. ClickHouse ------------------------------------------------------------------------------------
echo
echo "3. ClickHouse: usage_events inserts on core $CORE, $CH_CLIENTS clickhouse-client at once on core(s) $REST"
chq -q "DROP DATABASE IF EXISTS sizing_usage"
SHARIAH_CLICKHOUSE_URL="clickhouse://127.0.0.1:$CLICKHOUSE_PORT/sizing_usage" bin/shariah migrate >/dev/null
cols="request_id, key_id, user_id, key_prefix, method, route, status, tokens, overage, latency_us, ts, ts_ms"
rm -rf "$out/batches" && mkdir -p "$out/batches"
# One batch per second of traffic: ts advances a second per batch.
awk -v batches="$CH_BATCHES" -v start="$(date -u +%s)" -v seed="$$" -v dir="$out/batches" '
  function hex(n,   s) { s = ""; while (n-- > 0) s = s substr("0123456789abcdef", int(rand() * 16) + 1, 1); return s }
  BEGIN {
    srand(seed)
    split("/api/quote/{symbol} 2|/api/screen/{symbol} 5|/api/database/search 1|/api/suggest 1|/api/result/{symbol} 5|/api/quotes/batch 5|/api/ohlc/{symbol} 2|/api/screen-bulk/status 0|/api/auth/me 0|/api/insights/{symbol}/trajectory 3", routes, "|")
    for (k = 1; k <= 2000; k++) { key[k] = hex(64); user[k] = hex(8) "-" hex(4) "-7" hex(3) "-8" hex(3) "-" hex(12); prefix[k] = "ht_" hex(9) }
    for (b = 0; b < batches; b++) {
      f = sprintf("%s/%05d.tsv", dir, b); t = start + b
      for (i = 0; i < 5000; i++) {
        k = int(rand() * rand() * 2000) + 1 # a few keys make most of the traffic
        split(routes[int(rand() * 10) + 1], rt, " ")
        st = (rand() < 0.97) ? 200 : 404
        ms = int(rand() * 1000)
        printf "%08x-%s-7%s-8%s-%s\t%s\t%s\t%s\tGET\t%s\t%d\t%d\t0\t%d\t%d\t%d\n", t, hex(4), hex(3), hex(3), hex(12), key[k], user[k], prefix[k], rt[1], st, (st == 200 ? rt[2] : 0), 200 + int(rand() * 3000), t, t * 1000 + ms > f
      }
      close(f)
    }
  }'
taskset -a -cp "$CORE" "$ch_pid" >/dev/null
sleep 2
i0=$(ticks "$ch_pid")
sleep 5
idle=$(($(ticks "$ch_pid") - i0)) # ClickHouse's own background work over 5 s, subtracted below
ls "$out/batches"/*.tsv >"$out/batches.list"
for rep in $(seq 1 "$REPS"); do
  c0=$(ticks "$ch_pid") t0=$(date +%s.%N)
  for k in $(seq 0 $((CH_CLIENTS - 1))); do
    awk -v k="$k" -v m="$CH_CLIENTS" 'NR % m == k' "$out/batches.list" | while read -r f; do
      taskset -c "$REST" clickhouse-client --port "$CLICKHOUSE_PORT" \
        -q "INSERT INTO sizing_usage.usage_events ($cols) FORMAT TabSeparated" <"$f"
    done &
  done
  wait $(jobs -p)
  t1=$(date +%s.%N)
  sleep 5
  c1=$(ticks "$ch_pid") t2=$(date +%s.%N)
  awk -v rows="$((CH_BATCHES * 5000))" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v c="$((c1 - c0))" -v idle="$idle" -v hz="$HZ" -v l="$(load1)" \
    'BEGIN {cpu = (c - idle * (t2 - t0) / 5) / hz; printf "%d %.3f %.2f %s\n", rows, t1 - t0, cpu, l}' >>"$out/clickhouse.tsv"
  echo "  repetition $rep of $REPS done (load $(load1))"
done
taskset -a -cp "$REST" "$ch_pid" >/dev/null
# Bytes per row: the repetitions inserted the same rows again (which compress into each other), so one
# copy is loaded into a fresh table and merged into one part per partition.
chq -q "DROP DATABASE sizing_usage"
SHARIAH_CLICKHOUSE_URL="clickhouse://127.0.0.1:$CLICKHOUSE_PORT/sizing_usage" bin/shariah migrate >/dev/null
while read -r f; do
  chq -q "INSERT INTO sizing_usage.usage_events ($cols) FORMAT TabSeparated" <"$f"
done <"$out/batches.list"
chq -q "OPTIMIZE TABLE sizing_usage.usage_events FINAL"
storage=$(chq -q "SELECT sum(rows), sum(data_compressed_bytes), sum(data_uncompressed_bytes) FROM system.parts
  WHERE database = 'sizing_usage' AND table = 'usage_events' AND active")
edge_storage=$(chq -q "SELECT sum(rows), sum(data_compressed_bytes) FROM system.parts
  WHERE database = 'shariah' AND table = 'usage_events' AND active")

# --- Report -------------------------------------------------------------------------------------------
{
  cat "$out/header.txt"
  echo
  echo "1. Edge, per route: wall req/s with the edge on one core; the edge's CPU use (1.00 = the core saturated);"
  echo "   requests per edge CPU-second (the per-core figure); Redis CPU per request. Median (lowest-highest) of $REPS."
  printf '%-16s %24s %18s %24s %20s\n' route "req/s (1 core)" "edge core used" "req per edge CPU-s" "Redis us/request"
  for name in constant metered quote screening search search_varied suggest metered_noleases quote_accesslog; do
    f() { awk -v n="$name" "\$1 == n {print $1}" "$out/edge.tsv" | stats; }
    read -r a b c < <(f '$2')
    read -r u1 u2 u3 < <(f '$5 / $4')
    read -r p1 p2 p3 < <(f '($5 > 0) ? $3 / $5 : 0')
    read -r q1 q2 q3 < <(f '$6 * 1e6 / $3')
    printf '%-16s %8.0f (%6.0f-%6.0f) %6.2f (%4.2f-%4.2f) %8.0f (%6.0f-%6.0f) %6.1f (%5.1f-%5.1f)\n' \
      "$name" "$a" "$b" "$c" "$u1" "$u2" "$u3" "$p1" "$p2" "$p3" "$q1" "$q2" "$q3"
  done
  awk -v rows="$((rows1 - rows0))" -v c="$((chB - chA))" -v idle="$ch_idle" -v tA="$tA" -v tB="$tB" -v hz="$HZ" 'BEGIN {
    printf "   ClickHouse CPU per usage event the edges'"'"' writer shipped (the whole pass, less idle): %.1f us (%d events, %.0f s)\n",
      (c - idle * (tB - tA) / 5) / hz * 1e6 / rows, rows, tB - tA}'
  echo "   edge RSS after the runs: ${EDGE_RSS} MB (shared data set loaded)"
  echo
  echo "2. Worker: S&P 500 runs with force_refresh: wall time from POST to completed seen (polled every 100 ms), the"
  echo "   run's own started_at to finished_at, symbols/s on the latter, the worker's CPU use. Median (lowest-highest) of $REPS."
  printf '%-24s %7s %20s %20s %20s %18s %22s\n' "SHARIAH_BULK_CONCURRENCY" symbols "wall s" "run s" "symbols/s" "worker core used" "symbols per worker CPU-s"
  for conc in 4 16; do
    g() { awk -v c="$conc" "\$1 == c {print $1}" "$out/worker.tsv" | stats; }
    read -r s1 s2 s3 < <(g '$3')
    read -r x1 x2 x3 < <(g '$7')
    read -r r1 r2 r3 < <(g '$2 / $7')
    read -r u1 u2 u3 < <(g '$4 / $3')
    read -r p1 p2 p3 < <(g '($4 > 0) ? $2 / $4 : 0')
    n=$(awk -v c="$conc" '$1 == c {print $2; exit}' "$out/worker.tsv")
    printf '%-24s %7d %6.2f (%5.2f-%5.2f) %6.2f (%5.2f-%5.2f) %6.0f (%5.0f-%5.0f) %5.2f (%4.2f-%4.2f) %6.0f (%5.0f-%5.0f)\n' \
      "$conc" "$n" "$s1" "$s2" "$s3" "$x1" "$x2" "$x3" "$r1" "$r2" "$r3" "$u1" "$u2" "$u3" "$p1" "$p2" "$p3"
  done
  echo "   Redis CPU per symbol screened: $(awk '{r += $5; n += $2} END {printf "%.0f us", r * 1e6 / n}' "$out/worker.tsv")"
  echo "   constituents of every loaded index (a nightly rescreen of all): $total_symbols; worker RSS: ${WORKER_RSS} MB"
  echo
  echo "3. ClickHouse usage_events inserts (batches of 5,000). Median (lowest-highest) of $REPS."
  read -r w1 w2 w3 < <(awk '{print $1 / $2}' "$out/clickhouse.tsv" | stats)
  read -r p1 p2 p3 < <(awk '{print ($3 > 0) ? $1 / $3 : 0}' "$out/clickhouse.tsv" | stats)
  read -r u1 u2 u3 < <(awk '{print $3 / $2}' "$out/clickhouse.tsv" | stats)
  printf '   rows/s (wall, %d clients): %.0f (%.0f-%.0f); ClickHouse core used %.2f (%.2f-%.2f); rows per ClickHouse CPU-second: %.0f (%.0f-%.0f)\n' \
    "$CH_CLIENTS" "$w1" "$w2" "$w3" "$u1" "$u2" "$u3" "$p1" "$p2" "$p3"
  read -r r c u <<<"$storage"
  awk -v r="$r" -v c="$c" -v u="$u" 'BEGIN {printf "   on disk, one copy after OPTIMIZE FINAL: %d rows, %.1f bytes/row compressed (%.1f uncompressed)\n", r, c / r, u / r}'
  read -r r c <<<"$edge_storage"
  if [ "${r:-0}" -gt 0 ]; then
    awk -v r="$r" -v c="$c" 'BEGIN {printf "   (the edges'"'"' own usage rows, one key, not optimised: %d rows, %.1f bytes/row)\n", r, c / r}'
  fi
  if [ -f "$out/lb.tsv" ]; then
    echo
    echo "5. HAProxy (deploy/haproxy/haproxy.cfg, one thread, one edge), requests per HAProxy CPU-second. Median (lowest-highest) of $REPS."
    for name in constant quote; do
      read -r p1 p2 p3 < <(awk -v n="$name" '$1 == n && $4 > 0 {print $3 / $4}' "$out/lb.tsv" | stats)
      printf '   %-10s %8.0f (%6.0f-%6.0f)\n' "$name" "$p1" "$p2" "$p3"
    done
  fi
  echo
  echo "4. Memory"
  cat "$out/redis.txt" | sed 's/^/   /'
} | tee "$out/report.txt"
