package screening_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
)

// periodFact is a filed fact of a written fixture, from the given form.
func periodFact(v int64, form string) shariah.Fact {
	ref := map[string]string{"10-Q": "0000000001-25-000001", "10-K": "0000000001-25-000002"}[form]
	return shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(v)), Source: shariah.SourceFiling, Form: form, Ref: ref}
}

// tenKPeriods is a company whose latest filing is a 10-K: its Q3 10-Q, and from the 10-K both the
// fiscal year (revenue 1,000, interest income 20) and the fourth quarter (the same year-end balance
// sheet; revenue 250, the quarter's; no interest income line for the quarter).
func tenKPeriods() []shariah.Fundamentals {
	sheet := func(form string, assets int64) map[shariah.Field]shariah.Fact {
		return map[shariah.Field]shariah.Fact{shariah.TotalAssets: periodFact(assets, form), shariah.TotalDebt: periodFact(100, form),
			shariah.CashAndSecurities: periodFact(50, form), shariah.Receivables: periodFact(30, form), shariah.SharesOutstanding: periodFact(1_000, form)}
	}
	q3 := shariah.Fundamentals{Symbol: "TENK", PeriodEnd: "2024-09-30", Period: "Q3", FiscalYear: 2024, Currency: "USD", Facts: sheet("10-Q", 900)}
	q3.Facts[shariah.TotalRevenue], q3.Facts[shariah.InterestIncome] = periodFact(240, "10-Q"), periodFact(5, "10-Q")
	q4 := shariah.Fundamentals{Symbol: "TENK", PeriodEnd: "2024-12-31", Period: "Q4", FiscalYear: 2024, Currency: "USD", Facts: sheet("10-K", 1_000),
		Missing: map[shariah.Field]string{shariah.InterestIncome: "not reported: no 3-month InvestmentIncomeInterest ending 2024-12-31"}}
	q4.Facts[shariah.TotalRevenue] = periodFact(250, "10-K")
	fy := shariah.Fundamentals{Symbol: "TENK", PeriodEnd: "2024-12-31", Period: "FY", FiscalYear: 2024, Currency: "USD", Facts: sheet("10-K", 1_000)}
	fy.Facts[shariah.TotalRevenue], fy.Facts[shariah.InterestIncome] = periodFact(1_000, "10-K"), periodFact(20, "10-K")
	return []shariah.Fundamentals{q3, q4, fy}
}

// screenedInputs reads what a screening used from its spec result: the AAOIFI ratios over total
// assets (debt, cash, receivables over total assets) and the impure-revenue ratio over revenue, and the
// revenue breakdown's interest income.
func screenedInputs(t *testing.T, res screening.Result) map[shariah.Field]*shariah.Number {
	t.Helper()
	out := map[shariah.Field]*shariah.Number{}
	mr, ok := res.ByMethodology["AAOIFI"]
	if !ok {
		t.Fatalf("no aaoifi entry in %v", res.Methodologies)
	}
	for _, rr := range mr.Ratios {
		switch rr.ID {
		case "debt":
			out[shariah.TotalDebt], out[shariah.TotalAssets] = rr.Numerator, rr.Denominator
		case "cash":
			out[shariah.CashAndSecurities] = rr.Numerator
		case "receivables":
			out[shariah.Receivables] = rr.Numerator
		case "impure_revenue":
			out[shariah.TotalRevenue] = rr.Denominator
		}
	}
	out[shariah.InterestIncome] = res.RevenueBreakdown.InterestIncome
	return out
}

func screenTenK(t *testing.T, fs []shariah.Fundamentals, rs *screening.Ruleset) screening.Result {
	t.Helper()
	in := base()
	in.Asset.Symbol, in.Asset.CIK, in.Fundamentals = "TENK", "0000000001", fs
	return screening.Screen(in, rs, "")
}

// With the fiscal year and its fourth quarter both stored at the same end, the screening, the
// provenance and the stock view all stand on the fiscal year, and each names FY2024 for every input:
// revenue is the year's 1,000, not the quarter's 250, and interest income the year's 20, not "not
// available". The order the periods are stored in does not matter.
func TestOnePeriodFiscalYearOverFourthQuarter(t *testing.T) {
	t.Parallel()
	spec := allRulesets(t)["spec"]
	sorted := tenKPeriods()
	reversed := []shariah.Fundamentals{sorted[2], sorted[1], sorted[0]}
	for name, fs := range map[string][]shariah.Fundamentals{"sorted": sorted, "FY stored before Q4": reversed} {
		res := screenTenK(t, fs, spec)
		dq := res.DataQuality
		if dq.Period != "FY" || dq.AsOf != "2024-12-31" || dq.PeriodLabel != "FY2024" {
			t.Fatalf("%s: screened %s %s %q", name, dq.AsOf, dq.Period, dq.PeriodLabel)
		}
		used := screenedInputs(t, res)
		if used[shariah.TotalRevenue] == nil || used[shariah.TotalRevenue].String() != "1000" || used[shariah.InterestIncome].String() != "20" {
			t.Fatalf("%s: the screening used revenue %v, interest %v; want the fiscal year's 1000 and 20", name, used[shariah.TotalRevenue], used[shariah.InterestIncome])
		}
		prov := screening.ScreenedInputProvenances(screening.PeriodsFor(fs, spec), "0000000001")
		rec := screening.StockRecordOf(shariah.Asset{Symbol: "TENK", CIK: "0000000001"}, fs, spec)
		if rec.Fundamentals == nil || rec.Fundamentals.Period != "FY" || rec.DataQuality.PeriodLabel != "FY2024" || rec.DataQuality.AsOf != "2024-12-31" {
			t.Fatalf("%s: stock view period %+v", name, rec.DataQuality)
		}
		for f, v := range used {
			p, s := prov[f], rec.Inputs[f]
			if !p.Available || !s.Available || p.Fact.Value.String() != v.String() || s.Fact.Value.String() != v.String() ||
				rec.Fundamentals.Facts[f].Value.String() != v.String() {
				t.Errorf("%s %s: screening %v, provenance %+v, stock view %+v", name, f, v, p, s)
			}
			if p.Period.Label != "FY2024" || s.Period.Label != "FY2024" || dq.InputPeriods[string(f)] != "FY2024" || p.Period.Carried {
				t.Errorf("%s %s: periods screening %q, provenance %+v, stock view %+v", name, f, dq.InputPeriods[string(f)], p.Period, s.Period)
			}
		}
	}
	// The JSON names the period of each input.
	b, _ := json.Marshal(screening.StockRecordOf(shariah.Asset{Symbol: "TENK", CIK: "0000000001"}, sorted, spec))
	if !strings.Contains(string(b), `"total_revenue":{"accession":"0000000001-25-000002","available":true,`) ||
		!strings.Contains(string(b), `"period":"FY","period_end":"2024-12-31","period_label":"FY2024"`) {
		t.Errorf("stock view JSON: %s", b)
	}
	// The trajectory keeps quarters: Q4 stays the quarter (revenue 250) but says it came from the 10-K,
	// whose fiscal year the screening uses; Q3 came from its 10-Q.
	pts := insights.TrajectoryOf(sorted)
	if len(pts) != 2 || pts[1].Label != "Q4 2024" || !pts[1].FromAnnualFiling || pts[1].Form != "10-K" || !strings.Contains(pts[1].Note, "FY2024") {
		t.Fatalf("trajectory %+v", pts)
	}
	if pts[0].Label != "Q3 2024" || pts[0].FromAnnualFiling || pts[0].Note != "" {
		t.Fatalf("Q3 point %+v", pts[0])
	}
}

// A quarter without interest income screened under a ruleset that carries it forward: the interest
// ratio stands on the last fiscal year, and every answer names FY2024 for interest income and the
// revenue set against it (carried), Q2 2025 for the balance sheet. Under a ruleset that does not
// carry, interest income is not available in Q2 2025, and the answers say why.
func TestOnePeriodCarriedInterest(t *testing.T) {
	t.Parallel()
	rss := allRulesets(t)
	fs := tenKPeriods()
	q2 := shariah.Fundamentals{Symbol: "TENK", PeriodEnd: "2025-06-30", Period: "Q2", FiscalYear: 2025, Currency: "USD",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: periodFact(1_100, "10-Q"), shariah.TotalDebt: periodFact(110, "10-Q"),
			shariah.CashAndSecurities: periodFact(55, "10-Q"), shariah.Receivables: periodFact(33, "10-Q"), shariah.TotalRevenue: periodFact(260, "10-Q"),
			shariah.SharesOutstanding: periodFact(1_000, "10-Q")},
		Missing: map[shariah.Field]string{shariah.InterestIncome: "not reported"}}
	fs = append(fs, q2)
	spec := rss["spec"]
	res := screenTenK(t, fs, spec)
	used := screenedInputs(t, res)
	want := map[shariah.Field]string{shariah.TotalAssets: "Q2 2025", shariah.TotalDebt: "Q2 2025", shariah.CashAndSecurities: "Q2 2025",
		shariah.Receivables: "Q2 2025", shariah.TotalRevenue: "FY2024", shariah.InterestIncome: "FY2024", shariah.SharesOutstanding: "Q2 2025"}
	if res.DataQuality.PeriodLabel != "Q2 2025" || len(res.DataQuality.CarriedForward) != 1 || used[shariah.TotalRevenue].String() != "1000" {
		t.Fatalf("screening %+v, revenue used %v", res.DataQuality, used[shariah.TotalRevenue])
	}
	prov := screening.ScreenedInputProvenances(screening.PeriodsFor(fs, spec), "")
	rec := screening.StockRecordOf(shariah.Asset{Symbol: "TENK"}, fs, spec)
	for f, label := range want {
		p, s := prov[f], rec.Inputs[f]
		if res.DataQuality.InputPeriods[string(f)] != label || p.Period.Label != label || s.Period.Label != label || p.Period.Carried != (label == "FY2024") {
			t.Errorf("%s: want %s; screening %q, provenance %+v, stock view %+v", f, label, res.DataQuality.InputPeriods[string(f)], p.Period, s.Period)
		}
		if v := used[f]; v != nil && (p.Fact.Value.String() != v.String() || s.Fact.Value.String() != v.String()) {
			t.Errorf("%s: screening used %v, provenance %v, stock view %v", f, v, p.Fact.Value, s.Fact.Value)
		}
	}
	b, _ := json.Marshal(prov[shariah.InterestIncome])
	if !strings.Contains(string(b), `"carried_forward":true`) || !strings.Contains(string(b), `"period_label":"FY2024"`) {
		t.Errorf("carried interest JSON %s", b)
	}

	noCarry := *spec
	off := false
	noCarry.CarryForwardInterest = &off
	res = screenTenK(t, fs, &noCarry)
	ii := screening.ScreenedInputProvenances(screening.PeriodsFor(fs, &noCarry), "")[shariah.InterestIncome]
	rii := screening.StockRecordOf(shariah.Asset{Symbol: "TENK"}, fs, &noCarry).Inputs[shariah.InterestIncome]
	if ii.Available || ii.Period.Label != "Q2 2025" || !strings.Contains(ii.Reason, "does not carry") || rii.Reason != ii.Reason ||
		res.DataQuality.InputPeriods["interest_income"] != "Q2 2025" || res.DataQuality.InputPeriods["total_revenue"] != "Q2 2025" {
		t.Fatalf("without carrying: provenance %+v, stock view %+v, screening %v", ii, rii, res.DataQuality.InputPeriods)
	}
}

func TestPeriodLabel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		period string
		fy     int
		want   string
	}{{"FY", 2024, "FY2024"}, {"Q2", 2025, "Q2 2025"}, {"Q4", 2024, "Q4 2024"}, {"FY", 0, "FY ending 2024-12-31"}, {"Q1", 0, "Q1 ending 2024-12-31"}} {
		if got := screening.PeriodLabel(shariah.Fundamentals{Period: c.period, FiscalYear: c.fy, PeriodEnd: "2024-12-31"}); got != c.want {
			t.Errorf("%s %d: %q, want %q", c.period, c.fy, got, c.want)
		}
	}
	for form, annual := range map[string]bool{"10-K": true, "10-K/A": true, "20-F": true, "10-Q": false, "": false, "10-K (derived from YTD)": true, "8-K": false} {
		if insights.IsAnnualForm(form) != annual {
			t.Errorf("IsAnnualForm(%q) = %v", form, !annual)
		}
	}
}
