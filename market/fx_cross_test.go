package market

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

func numOf(s string) shariah.Number { return shariah.NewNumber(decimal.RequireFromString(s)) }

func TestCrossRates(t *testing.T) {
	t.Parallel()
	rates := []FXRate{{Currency: "EUR", PerUSD: numOf("0.9"), AsOf: "2026-09-30", Source: "fed-h10"},
		{Currency: "GBP", PerUSD: numOf("0.8"), AsOf: "2026-10-31", Source: "fed-h10"}}
	got, err := CrossRates(rates, "EUR", "GBP")
	if err != nil || len(got) != 1 || got[0].Rate.String() != "0.88888889" || got[0].AsOf != "2026-10-31" || got[0].Currency != "GBP" {
		t.Fatalf("EUR->GBP: %+v %v", got, err)
	}
	got, err = CrossRates(rates, "GBP", "")
	if err != nil || len(got) != 2 || got[0].Currency != "EUR" || got[1].Currency != "USD" || got[1].Rate.String() != "1.25" || got[1].Source != "definition" {
		t.Fatalf("all per GBP: %+v %v", got, err)
	}
	if _, err := CrossRates(rates, "JPY", ""); shariah.ErrorCode(err) != shariah.ENOTFOUND {
		t.Fatalf("unknown base: %v", err)
	}
	if _, err := CrossRates(rates, "USD", "JPY"); shariah.ErrorCode(err) != shariah.ENOTFOUND {
		t.Fatalf("unknown quote: %v", err)
	}
}
