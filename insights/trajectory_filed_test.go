package insights_test

import (
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
)

// A pack's filed quarters become trajectories, oldest first; illustrative periods and fiscal years
// give none, and a company with only those is absent.
func TestFiledTrajectoriesOf(t *testing.T) {
	period := func(sym, end, p, src string, assets, debt int64) shariah.Fundamentals {
		fact := func(v int64) shariah.Fact {
			return shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(v)), Source: src}
		}
		return shariah.Fundamentals{Symbol: sym, PeriodEnd: end, Period: p, Facts: map[shariah.Field]shariah.Fact{
			shariah.TotalAssets: fact(assets), shariah.TotalDebt: fact(debt)}}
	}
	got := insights.FiledTrajectoriesOf([]shariah.Fundamentals{
		period("AAA", "2025-06-30", "Q2", shariah.SourceFiling, 1000, 300),
		period("AAA", "2025-03-31", "Q1", shariah.SourceFiling, 1000, 250),
		period("AAA", "2024-12-31", "FY", shariah.SourceFiling, 1000, 200),
		period("AAA", "2025-09-30", "Q3", shariah.SourceIllustrative, 1000, 900),
		period("BBB", "2025-06-30", "Q2", shariah.SourceIllustrative, 1000, 100),
	})
	if len(got) != 1 || len(got["AAA"]) != 2 {
		t.Fatalf("got %v, want AAA's two filed quarters only", got)
	}
	q1, q2 := got["AAA"][0], got["AAA"][1]
	if q1.PeriodEnd != "2025-03-31" || q2.PeriodEnd != "2025-06-30" || *q1.DebtAssets != 0.25 || *q2.DebtAssets != 0.3 {
		t.Fatalf("quarters %+v %+v", q1, q2)
	}
}
