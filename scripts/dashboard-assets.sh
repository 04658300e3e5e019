#!/usr/bin/env bash
# Refreshes the dashboard's vendored charting library (uPlot, MIT) from npm into edge/dashboard/:
# the minified script and style sheet gzip-compressed (-n: no name or time, so the bytes are
# reproducible) and its LICENSE. Pin the version here; the page needs nothing else from outside.
set -euo pipefail
version=${UPLOT_VERSION:-1.6.32}
dst=$(cd "$(dirname "$0")/.." && pwd)/edge/dashboard
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$version" >/dev/null && tar xzf "uplot-$version.tgz")
gzip -9n -c "$tmp/package/dist/uPlot.iife.min.js" >"$dst/uPlot.iife.min.js.gz"
gzip -9n -c "$tmp/package/dist/uPlot.min.css" >"$dst/uPlot.min.css.gz"
cp "$tmp/package/LICENSE" "$dst/LICENSE.uplot"
echo "uPlot $version in $dst"
