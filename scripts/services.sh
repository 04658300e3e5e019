#!/usr/bin/env bash
# Starts or stops the local Redis and ClickHouse used by `make run`, on loopback, with their data under
# .local/ (git-ignored).
#
#   scripts/services.sh up     install when missing, start both (a server already answering on the
#                              port is reused), wait until they answer
#   scripts/services.sh down   stop the servers this script started
#   scripts/services.sh status
#
# Ports: REDIS_PORT (6379), CLICKHOUSE_PORT (9000, native), CLICKHOUSE_HTTP_PORT (8123).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state="$root/.local"
REDIS_PORT=${REDIS_PORT:-6379}
CLICKHOUSE_PORT=${CLICKHOUSE_PORT:-9000}
CLICKHOUSE_HTTP_PORT=${CLICKHOUSE_HTTP_PORT:-8123}

redis_up() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }
ch_up() { clickhouse-client --host 127.0.0.1 --port "$CLICKHOUSE_PORT" -q 'SELECT 1' >/dev/null 2>&1; }

wait_for() { # name, check function
  for _ in $(seq 1 150); do
    if "$2"; then return 0; fi
    sleep 0.2
  done
  echo "$1 did not come up; see $state/$1/" >&2
  return 1
}

up() {
  "$root/scripts/install-services.sh"
  mkdir -p "$state/redis" "$state/clickhouse"/{log,data,tmp,user_files,format_schemas}
  if redis_up; then
    echo "redis: already answering on 127.0.0.1:$REDIS_PORT, using it"
  else
    # AOF on and noeviction: the meter and the queues must not lose keys. appendfsync always: a
    # restart after a crash (kill -9, power) keeps every write Redis acknowledged; with everysec up to a
    # second of lease reports would be lost, tokens served and never counted (notes/lease.md).
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$state/redis" --appendonly yes --appendfsync always \
      --maxmemory-policy noeviction --daemonize yes --pidfile "$state/redis/redis.pid" \
      --logfile "$state/redis/redis.log"
    wait_for redis redis_up
    echo "redis: started on 127.0.0.1:$REDIS_PORT"
  fi
  if ch_up; then
    echo "clickhouse: already answering on 127.0.0.1:$CLICKHOUSE_PORT, using it"
  else
    sed -e "s#@DIR@#$state/clickhouse#g" -e "s#@TCP_PORT@#$CLICKHOUSE_PORT#" -e "s#@HTTP_PORT@#$CLICKHOUSE_HTTP_PORT#" \
      "$root/scripts/clickhouse-config.xml" > "$state/clickhouse/config.xml"
    nohup clickhouse-server --config-file="$state/clickhouse/config.xml" \
      > "$state/clickhouse/log/stdout.log" 2>&1 &
    echo $! > "$state/clickhouse/clickhouse.pid"
    wait_for clickhouse ch_up
    echo "clickhouse: started on 127.0.0.1:$CLICKHOUSE_PORT"
  fi
}

down() {
  if [ -f "$state/redis/redis.pid" ]; then
    kill "$(cat "$state/redis/redis.pid")" 2>/dev/null || true
    rm -f "$state/redis/redis.pid"
    echo "redis: stopped"
  fi
  if [ -f "$state/clickhouse/clickhouse.pid" ]; then
    kill "$(cat "$state/clickhouse/clickhouse.pid")" 2>/dev/null || true
    rm -f "$state/clickhouse/clickhouse.pid"
    echo "clickhouse: stopped"
  fi
}

status() {
  redis_up && echo "redis: up on $REDIS_PORT" || echo "redis: down"
  ch_up && echo "clickhouse: up on $CLICKHOUSE_PORT" || echo "clickhouse: down"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
