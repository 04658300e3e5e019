package etf

import (
	"context"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// ComparisonItem is one ETF of a comparison.
type ComparisonItem struct {
	Symbol                string            `json:"symbol"`
	Name                  string            `json:"name"`
	HoldingsCount         int               `json:"holdings_count"`
	HoldingsAsOf          string            `json:"holdings_as_of"`
	TopHoldings           []shariah.Holding `json:"top_holdings"`
	ComplianceStatus      string            `json:"compliance_status"`
	Disposition           string            `json:"disposition"` // as in the ETF's screening (Disposition)
	CompliantWeightPct    string            `json:"compliant_weight_pct"`
	NonCompliantWeightPct string            `json:"non_compliant_weight_pct"`
	UnknownWeightPct      string            `json:"unknown_weight_pct"`
	PurificationRate      *shariah.Number   `json:"purification_rate"` // percent
	PurificationFrac      *shariah.Number   `json:"purification_rate_fraction"`
}

// PairOverlap is the weight two ETFs hold in common.
type PairOverlap struct {
	A          string `json:"a"`
	B          string `json:"b"`
	OverlapPct string `json:"overlap_pct"`
}

// Comparison compares 2-5 ETFs: holdings, screening and pairwise overlap.
type Comparison struct {
	Items   []ComparisonItem `json:"items"`
	Overlap []PairOverlap    `json:"overlap"`
}

// Compare compares ETFs (symbols already counted by the caller).
func (e *Service) Compare(ctx context.Context, syms []string, ruleset string) (Comparison, error) {
	holdings := map[string][]shariah.Holding{}
	var out Comparison
	var order []string
	for _, raw := range syms {
		sym, err := e.Catalogs.Resolve(ctx, raw)
		if err != nil {
			return Comparison{}, err
		}
		if sym == "" {
			return Comparison{}, catalog.UnknownSymbol(strings.ToUpper(strings.TrimSpace(raw)))
		}
		a, err := e.ETFAsset(ctx, sym)
		if err != nil {
			return Comparison{}, err
		}
		hs, err := e.Holdings(ctx, a)
		if err != nil {
			return Comparison{}, err
		}
		holdings[a.Symbol] = hs
		order = append(order, a.Symbol)
		r, err := e.CachedOrScreen(ctx, a.Symbol, ruleset)
		if err != nil {
			return Comparison{}, err
		}
		top := append([]shariah.Holding(nil), hs...)
		sort.SliceStable(top, func(i, j int) bool { return top[i].Weight.GreaterThan(top[j].Weight.Decimal) })
		out.Items = append(out.Items, ComparisonItem{Symbol: a.Symbol, Name: a.Name, HoldingsCount: len(hs), HoldingsAsOf: hs[0].AsOf,
			TopHoldings: top[:min(5, len(top))], ComplianceStatus: r.ComplianceStatus,
			Disposition: Disposition(r), CompliantWeightPct: r.CompliantWeightPct,
			NonCompliantWeightPct: r.NonCompliantWeightPct, UnknownWeightPct: r.UnknownWeightPct, PurificationRate: r.PurificationRate,
			PurificationFrac: r.PurificationFraction})
	}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			o := Overlap(holdings[order[i]], holdings[order[j]])
			out.Overlap = append(out.Overlap, PairOverlap{A: order[i], B: order[j], OverlapPct: o.Mul(decimal.NewFromInt(100)).StringFixed(2)})
		}
	}
	return out, nil
}

// Overlap is the weight two ETFs hold in common: the sum over shared holdings of the smaller weight.
func Overlap(a, b []shariah.Holding) decimal.Decimal {
	wa := map[string]decimal.Decimal{}
	for _, h := range a {
		if h.Symbol != "" {
			wa[h.Symbol] = wa[h.Symbol].Add(h.Weight.Decimal)
		}
	}
	wb := map[string]decimal.Decimal{}
	for _, h := range b {
		if h.Symbol != "" {
			wb[h.Symbol] = wb[h.Symbol].Add(h.Weight.Decimal)
		}
	}
	sum := decimal.Zero
	for s, w := range wa {
		if v, ok := wb[s]; ok {
			sum = sum.Add(decimal.Min(w, v))
		}
	}
	return sum
}
