package shariah

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestPurifyPeriods(t *testing.T) {
	t.Parallel()
	fs := []Fundamentals{{PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[Field]Fact{
		InterestIncome: {Value: numOf("300"), Source: SourceFiling, Ref: "0000320193-26-000001"}, SharesOutstanding: {Value: numOf("1000"), Source: SourceFiling}}}}
	shares := decimal.RequireFromString("3.5")
	ps := PurifyPeriods(fs, &shares)
	if len(ps) != 1 || ps[0].PerShare.String() != "0.3" || ps[0].Amount == nil || ps[0].Amount.String() != "1.05" || ps[0].Ref != "0000320193-26-000001" {
		t.Fatalf("periods: %+v", ps)
	}
	if ps := PurifyPeriods(fs, nil); len(ps) != 1 || ps[0].Amount != nil {
		t.Fatalf("without shares: %+v", ps)
	}
	if ps := PurifyPeriods(nil, &shares); ps == nil || len(ps) != 0 {
		t.Fatalf("no fundamentals: %#v", ps)
	}
}
