package etf

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// HoldingsWeightPct is the total weight of holdings in percent, to 2 places (about 100.00 for a full
// holdings file).
func HoldingsWeightPct(hs []shariah.Holding) string {
	t := decimal.Zero
	for _, h := range hs {
		t = t.Add(h.Weight.Decimal)
	}
	return t.Mul(decimal.NewFromInt(100)).StringFixed(2)
}

// TopHoldings is the n heaviest holdings, heaviest first (ties in file order); with at most n
// holdings, all of them in file order.
func TopHoldings(hs []shariah.Holding, n int) []shariah.Holding {
	if len(hs) <= n {
		return hs
	}
	top := append([]shariah.Holding(nil), hs...)
	sort.SliceStable(top, func(i, j int) bool { return top[i].Weight.GreaterThan(top[j].Weight.Decimal) })
	return top[:n]
}

// DirectoryEntry is an ETF of the database and whether its holdings are loaded (only those can be
// screened).
type DirectoryEntry struct {
	shariah.Asset
	HasHoldings bool `json:"has_holdings"`
}

// Directory lists the ETFs among hits, those with holdings (withHoldings) first, otherwise in hit
// order; onlyHoldings keeps only those with holdings.
func Directory(hits []catalog.SearchHit, withHoldings []string, onlyHoldings bool) []DirectoryEntry {
	has := map[string]bool{}
	for _, w := range withHoldings {
		has[w] = true
	}
	var all []DirectoryEntry
	for _, h := range hits {
		if onlyHoldings && !has[h.Symbol] {
			continue
		}
		all = append(all, DirectoryEntry{Asset: h.Asset, HasHoldings: has[h.Symbol]})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].HasHoldings && !all[j].HasHoldings })
	return all
}
