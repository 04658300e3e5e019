#!/usr/bin/env bash
# Installs what the service and its tests need on Debian, when missing: Redis, ClickHouse (Debian's
# 18.16 package), redis-cli (cluster tests) and wrk (make load). Needs root (or sudo).
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
command -v clickhouse-server >/dev/null 2>&1 || need+=(clickhouse-server)
command -v clickhouse-client >/dev/null 2>&1 || need+=(clickhouse-client)
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
