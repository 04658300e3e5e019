package mcp_test

import (
	"strings"
	"testing"
)

// TestSearchStocksAssetType: search_stocks reads asset_type with the domain's filter parser (as the REST
// search does): a type narrows the hits, all (or none) searches every type, plural forms are accepted,
// and an unknown type is a validation error naming the argument instead of a silent search of all types.
func TestSearchStocksAssetType(t *testing.T) {
	t.Parallel()
	h := start(t)
	types := func(args map[string]any) (map[string]bool, float64) {
		res, m := h.call(t, "search_stocks", args)
		if res.IsError {
			t.Fatalf("%v: %s", args, text(res))
		}
		seen := map[string]bool{}
		for _, r := range m["results"].([]any) {
			seen[r.(map[string]any)["asset_type"].(string)] = true
		}
		return seen, m["total"].(float64)
	}
	etf, etfTotal := types(map[string]any{"query": "S", "asset_type": "etf", "limit": 100})
	if len(etf) != 1 || !etf["etf"] {
		t.Errorf("asset_type etf found types %v", etf)
	}
	if plural, total := types(map[string]any{"query": "S", "asset_type": "etfs", "limit": 100}); total != etfTotal || len(plural) != 1 {
		t.Errorf("etfs: %v %v, want the etf hits (%v)", plural, total, etfTotal)
	}
	all, allTotal := types(map[string]any{"query": "S", "limit": 100})
	if _, total := types(map[string]any{"query": "S", "asset_type": "all", "limit": 100}); total != allTotal || allTotal <= etfTotal || !all["equity"] {
		t.Errorf("all: %v of %v (types %v), etf %v", total, allTotal, all, etfTotal)
	}
	res, _ := h.call(t, "search_stocks", map[string]any{"query": "S", "asset_type": "bonds"})
	if !res.IsError || !strings.Contains(text(res), "VALIDATION_ERROR") || !strings.Contains(text(res), "arguments.asset_type") {
		t.Errorf("asset_type bonds: %s", text(res))
	}
}
