package shariah

import (
	"context"
	"strings"

	"github.com/shopspring/decimal"
)

// FXRate is the value of one US dollar in a currency (units of the currency per USD), as of a date.
type FXRate struct {
	Currency string `json:"currency"` // ISO 4217
	PerUSD   Number `json:"per_usd"`
	AsOf     string `json:"as_of"`
	Source   string `json:"source"`
}

// fxPlaces is the precision of a currency conversion (a division, so it cannot be exact).
const fxPlaces = 12

// fxTable converts amounts to USD with the reference rates, read once per calculation.
type fxTable struct {
	ref   RefReader
	rates map[string]FXRate
}

// toUSD converts an amount in currency to USD; ok is false when no rate is known.
func (t *fxTable) toUSD(ctx context.Context, amount decimal.Decimal, currency string) (usd decimal.Decimal, rate *FXRate, ok bool, err error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if currency == "" || currency == "USD" {
		return amount, nil, true, nil
	}
	if t.rates == nil {
		rs, err := t.ref.FX(ctx)
		if err != nil {
			return decimal.Zero, nil, false, err
		}
		t.rates = map[string]FXRate{}
		for _, r := range rs {
			t.rates[strings.ToUpper(r.Currency)] = r
		}
	}
	r, found := t.rates[currency]
	if !found || !r.PerUSD.IsPositive() {
		return decimal.Zero, nil, false, nil
	}
	return amount.DivRound(r.PerUSD.Decimal, fxPlaces), &r, true, nil
}
