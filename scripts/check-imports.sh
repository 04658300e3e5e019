#!/usr/bin/env bash
# Holds the import direction of the layout. Every package of the module is in one layer, and a package
# imports only packages of lower layers (never its own layer, never a higher one); a package in no layer
# fails the check, so a new package must be placed here. Test files are not checked.
#
#   0 domain      .                          the rules and services, in the domain's words
#   1 data        rules education datapack/defaultpack ingest/httpx internal/testsvc internal/tools/*
#                 svgchart                   embedded data and leaf helpers (svgchart: pictures drawn
#                                            from domain values): the domain at most
#   2 readers     ingest ingest/*            fetch and parse outside sources into domain types
#   3 adapters    redis analytics billing datapack
#                                            stores, payment and the data-pack loader (which may use
#                                            the readers' parsers)
#   4 config      config                     the environment read into settings (may check values with
#                                            an adapter's parser)
#                 internal/redistest         test support: a Redis with the default pack (adapters)
#   5 services    jobs agent                 long-running work on the domain's services
#   6 interfaces  edge mcp                   HTTP and MCP
#   7 binary      cmd/*                      composes everything
set -euo pipefail
mod=$(go list -m)

layer_of() {
  case "$1" in
    "") echo 0 ;;
    internal/redistest) echo 4 ;;
    rules|education|datapack/defaultpack|ingest/httpx|svgchart|internal/*) echo 1 ;;
    ingest|ingest/*) echo 2 ;;
    redis|analytics|billing|datapack) echo 3 ;;
    config) echo 4 ;;
    jobs|agent) echo 5 ;;
    edge|mcp) echo 6 ;;
    cmd/*) echo 7 ;;
    *) echo "" ;;
  esac
}

name() { [ -n "$1" ] && echo "$1" || echo "the domain"; }

fail=0
while read -r pkg imports; do
  rel=${pkg#"$mod"}; rel=${rel#/}
  from=$(layer_of "$rel")
  if [ -z "$from" ]; then echo "import direction: $rel is in no layer (add it to scripts/check-imports.sh)" >&2; fail=1; continue; fi
  for imp in $imports; do
    case "$imp" in "$mod" | "$mod"/*) ;; *) continue ;; esac
    irel=${imp#"$mod"}; irel=${irel#/}
    to=$(layer_of "$irel")
    if [ -z "$to" ] || [ "$to" -ge "$from" ]; then
      echo "import direction: $(name "$rel") (layer $from) imports $(name "$irel") (layer ${to:-none})" >&2
      fail=1
    fi
  done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
exit $fail
