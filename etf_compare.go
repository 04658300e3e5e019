package shariah

import (
	"context"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// ETFComparisonItem is one ETF of a comparison.
type ETFComparisonItem struct {
	Symbol                string    `json:"symbol"`
	Name                  string    `json:"name"`
	HoldingsCount         int       `json:"holdings_count"`
	HoldingsAsOf          string    `json:"holdings_as_of"`
	TopHoldings           []Holding `json:"top_holdings"`
	ComplianceStatus      string    `json:"compliance_status"`
	Disposition           string    `json:"disposition"` // as in the ETF's screening (ETFDisposition)
	CompliantWeightPct    string    `json:"compliant_weight_pct"`
	NonCompliantWeightPct string    `json:"non_compliant_weight_pct"`
	UnknownWeightPct      string    `json:"unknown_weight_pct"`
	PurificationRate      *Number   `json:"purification_rate"` // percent
	PurificationFrac      *Number   `json:"purification_rate_fraction"`
}

// ETFOverlap is the weight two ETFs hold in common.
type ETFOverlap struct {
	A          string `json:"a"`
	B          string `json:"b"`
	OverlapPct string `json:"overlap_pct"`
}

// ETFComparison compares 2-5 ETFs: holdings, screening and pairwise overlap.
type ETFComparison struct {
	Items   []ETFComparisonItem `json:"items"`
	Overlap []ETFOverlap        `json:"overlap"`
}

// Compare compares ETFs (symbols already counted by the caller).
func (e *ETFs) Compare(ctx context.Context, syms []string, ruleset string) (ETFComparison, error) {
	holdings := map[string][]Holding{}
	var out ETFComparison
	var order []string
	for _, raw := range syms {
		sym, err := e.Catalogs.Resolve(ctx, raw)
		if err != nil {
			return ETFComparison{}, err
		}
		if sym == "" {
			return ETFComparison{}, UnknownSymbol(strings.ToUpper(strings.TrimSpace(raw)))
		}
		a, err := e.ETFAsset(ctx, sym)
		if err != nil {
			return ETFComparison{}, err
		}
		hs, err := e.Holdings(ctx, a)
		if err != nil {
			return ETFComparison{}, err
		}
		holdings[a.Symbol] = hs
		order = append(order, a.Symbol)
		r, err := e.CachedOrScreen(ctx, a.Symbol, ruleset)
		if err != nil {
			return ETFComparison{}, err
		}
		top := append([]Holding(nil), hs...)
		sort.SliceStable(top, func(i, j int) bool { return top[i].Weight.GreaterThan(top[j].Weight.Decimal) })
		out.Items = append(out.Items, ETFComparisonItem{Symbol: a.Symbol, Name: a.Name, HoldingsCount: len(hs), HoldingsAsOf: hs[0].AsOf,
			TopHoldings: top[:min(5, len(top))], ComplianceStatus: r.ComplianceStatus,
			Disposition: ETFDisposition(r), CompliantWeightPct: r.CompliantWeightPct,
			NonCompliantWeightPct: r.NonCompliantWeightPct, UnknownWeightPct: r.UnknownWeightPct, PurificationRate: r.PurificationRate,
			PurificationFrac: r.PurificationFraction})
	}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			o := Overlap(holdings[order[i]], holdings[order[j]])
			out.Overlap = append(out.Overlap, ETFOverlap{A: order[i], B: order[j], OverlapPct: o.Mul(decimal.NewFromInt(100)).StringFixed(2)})
		}
	}
	return out, nil
}

// Overlap is the weight two ETFs hold in common: the sum over shared holdings of the smaller weight.
func Overlap(a, b []Holding) decimal.Decimal {
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
