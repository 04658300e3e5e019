#!/usr/bin/env bash
# make bench-analytics: the usage analytics over ROWS synthetic usage rows (default 100 million).
#
# Starts a ClickHouse of its own (loopback, data in a temporary directory, removed at the end), creates a
# separate database with the service's migrations (`shariah migrate`), generates the rows server-side
# (INSERT ... SELECT FROM system.numbers in blocks of BLOCK rows, through the materialized views, as the
# usage writer's inserts go), and reports:
#   - the insert rate (rows/s, the views included);
#   - storage per row: compressed bytes (system.parts) of usage_events and of each aggregate;
#   - the time of each analytics query over the whole range, cold and warm (BenchmarkUsageAnalyticsQueries,
#     the service's own query code);
# then drops its database and stops its server.
#
# The rows: one year up to now, in time order (as requests arrive), 2000 keys of 1000 users over the
# five plans and 40 routes, both skewed (a few keys and routes take most requests), latencies of 1 ms
# to 2 s, 1% 404, 0.2% 500, quota refusals (QUOTA_EXCEEDED) on free keys and overage on starter keys.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROWS=${ROWS:-100000000}
BLOCK=${BLOCK:-5000000}
DB=bench_analytics
dir=$(mktemp -d /tmp/bench-analytics.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
http=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$dir"/{log,data,tmp,user_files,format_schemas}
sed -e "s#@DIR@#$dir#g" -e "s#@TCP_PORT@#$port#" -e "s#@HTTP_PORT@#$http#" "$root/scripts/clickhouse-config.xml" > "$dir/config.xml"
clickhouse-server --config-file="$dir/config.xml" > "$dir/log/stdout.log" 2>&1 &
pid=$!
cleanup() {
  clickhouse-client --port "$port" -q "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
ch() { clickhouse-client --port "$port" "$@"; }
for _ in $(seq 1 150); do ch -q 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.2; done

url="clickhouse://127.0.0.1:$port/$DB"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); ClickHouse $(ch -q 'SELECT version()')"
(cd "$root" && go build -o "$dir/shariah" ./cmd/shariah)
SHARIAH_CLICKHOUSE_URL="$url" "$dir/shariah" migrate >/dev/null 2>&1

now=$(date -u +%s)
start=$((now - 365 * 86400))
span=$((365 * 86400))
echo "generating $ROWS rows in blocks of $BLOCK ..."
t0=$(date +%s.%N)
done_rows=0
while [ "$done_rows" -lt "$ROWS" ]; do
  n=$(( ROWS - done_rows < BLOCK ? ROWS - done_rows : BLOCK ))
  # k: the key (skewed: the cube of a uniform draw), r: the route (squared), s: the status draw
  ch --max_insert_block_size="$n" -q "
    INSERT INTO $DB.usage_events (request_id, key_id, user_id, key_prefix, method, route, status, tokens, overage,
      latency_us, ts, ts_ms, plan, error_code)
    SELECT toString(number) AS request_id, concat('k', toString(k)) AS key_id, concat('u', toString(intDiv(k, 2))) AS user_id,
      concat('ht_', toString(100000000 + k)) AS key_prefix, if(r % 7 = 0, 'POST', 'GET') AS method,
      concat('/api/route', toString(r), '/{symbol}') AS route,
      toUInt16(multiIf(quota, 429, s < 100, 404, s < 120, 500, 200)) AS status,
      toUInt32(if(status = 200, 1 + r % 5, 0)) AS tokens,
      toUInt32(if(status = 200 AND plan = 'starter' AND s % 50 = 0, tokens, 0)) AS overage,
      toUInt64(1000 + (cityHash64(number, 3) % 1000) * (1 + (cityHash64(number, 4) % 2000) * (cityHash64(number, 4) % 2000) / 2000)) AS latency_us,
      toDateTime($start + intDiv(number * $span, $ROWS)) AS ts, toUInt64(($start + intDiv(number * $span, $ROWS)) * 1000) AS ts_ms,
      arrayElement(['free', 'starter', 'pro', 'enterprise', 'internal'], k % 5 + 1) AS plan,
      multiIf(quota, 'QUOTA_EXCEEDED', s < 100, 'NOT_FOUND', s < 120, 'INTERNAL_ERROR', '') AS error_code
    FROM (SELECT number,
        toUInt32(2000 * pow((cityHash64(number, 1) % 1000000) / 1000000, 3)) AS k,
        toUInt32(40 * pow((cityHash64(number, 2) % 1000000) / 1000000, 2)) AS r,
        cityHash64(number, 5) % 10000 AS s,
        k % 5 = 0 AND s >= 9950 AS quota
      FROM system.numbers WHERE number >= $done_rows LIMIT $n)"
  done_rows=$((done_rows + n))
  printf '\r  %d rows' "$done_rows"
done
t1=$(date +%s.%N)
echo
awk -v n="$ROWS" -v a="$t0" -v b="$t1" 'BEGIN {printf "insert: %d rows in %.1f s, %.0f rows/s (the six views included)\n", n, b - a, n / (b - a)}'

echo "storage (compressed bytes in active parts, after merges settle):"
ch -q "OPTIMIZE TABLE $DB.usage_route_hourly" >/dev/null 2>&1 || true
ch -q "SELECT table, sum(rows) AS rows, formatReadableSize(sum(data_compressed_bytes)) AS compressed,
         round(sum(data_compressed_bytes) / $ROWS, 2) AS bytes_per_usage_row, count() AS parts
       FROM system.parts WHERE database = '$DB' AND active GROUP BY table ORDER BY sum(data_compressed_bytes) DESC
       FORMAT PrettyCompactMonoBlock"

echo "queries over the whole range (service code, analytics.UsageReader):"
(cd "$root" && SHARIAH_BENCH_ANALYTICS_URL="$url" go test -count=1 -run '^$' -bench '^BenchmarkUsageAnalyticsQueries$' -benchtime 5x ./analytics/ |
  grep -v '^goos\|^goarch\|^pkg\|^cpu\|^PASS\|^ok ')
