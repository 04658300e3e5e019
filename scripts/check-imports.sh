#!/usr/bin/env bash
# Holds the import direction of the layout (house-style.md): the domain (root) imports no project
# package; config imports only the domain (it builds the plan set from the environment); redis and
# analytics import only the root and config; nothing imports edge, mcp or cmd.
set -euo pipefail
mod=$(go list -m)
fail=0
while read -r pkg imports; do
  rel=${pkg#"$mod"}; rel=${rel#/}
  for imp in $imports; do
    case "$imp" in "$mod"*) ;; *) continue ;; esac
    irel=${imp#"$mod"}; irel=${irel#/}
    bad=""
    case "$rel" in
      "") bad="the domain imports $irel" ;;
      config) [ -z "$irel" ] || bad="config imports $irel" ;;
      redis|analytics) case "$irel" in ""|config) ;; *) bad="$rel imports $irel" ;; esac ;;
    esac
    case "$irel" in edge|mcp|cmd/*) case "$rel" in cmd/*) ;; *) bad="$rel imports $irel" ;; esac ;; esac
    if [ -n "$bad" ]; then echo "import direction: $bad" >&2; fail=1; fi
  done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./... | grep -v '/internal/')
exit $fail
