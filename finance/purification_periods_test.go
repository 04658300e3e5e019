package finance

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

func numOf(s string) shariah.Number { return shariah.NewNumber(decimal.RequireFromString(s)) }

func TestPurifyPeriods(t *testing.T) {
	t.Parallel()
	fs := []shariah.Fundamentals{{PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
		shariah.InterestIncome: {Value: numOf("300"), Source: shariah.SourceFiling, Ref: "0000320193-26-000001"}, shariah.SharesOutstanding: {Value: numOf("1000"), Source: shariah.SourceFiling}}}}
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
