#!/usr/bin/env bash
# Installs what the service and its tests need on Debian, when missing: Redis, ClickHouse (Debian's
# 18.16 package), redis-cli (cluster tests), ZooKeeper and the Java runtime it depends on (replicated
# ClickHouse tests), Chromium (the dashboard's browser test) and wrk (make load). Needs root (or sudo).
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
command -v clickhouse-server >/dev/null 2>&1 || need+=(clickhouse-server)
command -v clickhouse-client >/dev/null 2>&1 || need+=(clickhouse-client)
# The tests run Debian's jar with java themselves (internal/testsvc); the package brings default-jre.
{ [ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null 2>&1; } || need+=(zookeeper)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ "${WITH_WRK:-0}" = 1 ]; then command -v wrk >/dev/null 2>&1 || need+=(wrk); fi
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "installing: ${need[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# The Debian package starts its own clickhouse-server on :9000 under systemd where there is one; ours
# runs from scripts/services.sh with its own config and data directory.
# Likewise the zookeeper package may start a ZooKeeper on :2181 under systemd; the tests start their own
# on free ports.
