package market

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// CrossRate is the price of one unit of a base currency in another currency.
type CrossRate struct {
	Currency string         `json:"currency"`
	Rate     shariah.Number `json:"rate"`   // units of Currency per one unit of the base, to 8 places
	AsOf     string         `json:"as_of"`  // the later of the two rates' dates
	Source   string         `json:"source"` // the source of Currency's rate
}

// CrossRates converts rates per USD to rates per one base: for quote alone when given, otherwise for
// every other currency, by code. USD is 1 per USD by definition. A base or quote without a rate is
// ENOTFOUND.
func CrossRates(perUSD []FXRate, base, quote string) ([]CrossRate, error) {
	per := map[string]FXRate{"USD": {Currency: "USD", PerUSD: shariah.NewNumber(decimal.NewFromInt(1)), Source: "definition"}}
	for _, r := range perUSD {
		per[r.Currency] = r
	}
	b, ok := per[base]
	if !ok {
		return nil, shariah.Errorf(shariah.ENOTFOUND, "No rate for %s.", base)
	}
	cross := func(q FXRate) CrossRate {
		asOf := q.AsOf
		if b.AsOf > asOf {
			asOf = b.AsOf
		}
		return CrossRate{Currency: q.Currency, Rate: shariah.NewNumber(q.PerUSD.Decimal.DivRound(b.PerUSD.Decimal, 8)), AsOf: asOf, Source: q.Source}
	}
	out := []CrossRate{}
	if quote != "" {
		q, ok := per[quote]
		if !ok {
			return nil, shariah.Errorf(shariah.ENOTFOUND, "No rate for %s.", quote)
		}
		return append(out, cross(q)), nil
	}
	for cur, q := range per {
		if cur != base {
			out = append(out, cross(q))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out, nil
}
