#!/usr/bin/env bash
# Holds the import direction of the layout. Every package of the module is in one layer, and a package
# imports only packages of lower layers (never its own layer, never a higher one); a package in no layer
# fails the check, so a new package must be placed here. Test files are not checked.
#
#   0 kernel      .                          the shared vocabulary of the domain (issue 28)
#   1 contexts    sukuk account filings      bounded contexts that need only the kernel (account: keys,
#                 catalog                    plans, token costs, the meter, billing events, usage,
#                                            watchlists;
#                                            filings: filings, 8-K events, news; catalog: the catalog,
#                                            its cache and search, the index listing)
#   2             market                     quotes and their bodies, trending, price history, FX, metals,
#                                            popularity, splits; the reference store contract (refstore.go)
#   3             screening                  rulesets, engine, explanations, results, screener, portfolio,
#                                            compare, watchlist statuses
#   4             finance insights bulk      contexts built on screening (finance: zakat, purification;
#                 webhooks                   bulk: runs of an index, takeover, summaries, run access;
#                                            insights: trajectories, drift, peers, cash flow; webhooks:
#                                            endpoints, deliveries, signing, safe targets, needing only
#                                            account and catalog, placed beside the change events)
#   5             etf                        ETF look-through (purifies with finance)
#   6 data        rules education datapack/defaultpack ingest/httpx internal/testsvc internal/tools/*
#                 svgchart                   embedded data and leaf helpers (svgchart: pictures drawn
#                                            from domain values): the domain at most
#   7 readers     ingest ingest/*            fetch and parse outside sources into domain types
#   8 adapters    redis analytics stripe datapack
#                                            stores, payment and the data-pack loader (which may use
#                                            the readers' parsers)
#   9 config      config                     the environment read into settings (may check values with
#                                            an adapter's parser)
#                 internal/redistest         test support: a Redis with the default pack (adapters)
#  10 services    jobs agent                 long-running work on the domain's services
#  11 interfaces  edge mcp                   HTTP and MCP
#  12 composition app                        builds every service of a process once, from the
#                                            configuration and the clients (the binary and the edge's
#                                            and MCP's tests compose with it)
#  13 binary      cmd/*                      opens the clients, runs the actors
set -euo pipefail
mod=$(go list -m)

layer_of() {
  case "$1" in
    "") echo 0 ;;
    sukuk|account|filings|catalog) echo 1 ;;
    market) echo 2 ;;
    screening) echo 3 ;;
    finance|bulk|insights|webhooks) echo 4 ;;
    etf) echo 5 ;;
    internal/redistest) echo 9 ;;
    rules|education|datapack/defaultpack|ingest/httpx|svgchart|internal/*) echo 6 ;;
    ingest|ingest/*) echo 7 ;;
    redis|analytics|stripe|datapack) echo 8 ;;
    config) echo 9 ;;
    jobs|agent) echo 10 ;;
    edge|mcp) echo 11 ;;
    app) echo 12 ;;
    cmd/*) echo 13 ;;
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
