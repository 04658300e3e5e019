package screening_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// boundBase is base() without interest income (not reported) for the quarter ending 2025-06-30, whose
// window (2025-04-01 to 2025-06-30) has a highest policy rate of 4.50% (PolicyRates, 2025): the bound
// is cash x (450 + 100 bp) x 3/12 = cash x 1.375%. Revenue 1,000,000; impure revenue filed at 0; total
// assets 100,000,000 and market cap 1,000,000,000, so every other ratio passes.
func boundBase(cash int64) screening.ScreenInputs {
	in := base()
	p := &in.Fundamentals[0]
	p.PeriodEnd, p.FiscalYear = "2025-06-30", 2025
	delete(p.Facts, shariah.InterestIncome)
	p.Facts[shariah.CashAndSecurities] = fact(cash)
	// Total assets and market cap large enough for the cash ratios to pass.
	p.Facts[shariah.TotalAssets], p.Facts[shariah.SharesOutstanding] = fact(100_000_000), fact(1_000_000_000)
	p.Missing = map[shariah.Field]string{shariah.InterestIncome: "not reported: no interest concept in the 10-Q"}
	return in
}

func impureOf(t *testing.T, res screening.Result, m string) screening.RatioResult {
	t.Helper()
	return ratioOf(t, res, m, "impure_revenue")
}

// TestInterestBoundPasses: 1,000,000 of cash bounds the quarter's interest income at 13,750, 1.375% of
// revenue: every methodology's 5% income screen passes on the bound, said in data_quality.bounded,
// the ratio's bound and note, and the explanation, with the figures.
func TestInterestBoundPasses(t *testing.T) {
	t.Parallel()
	spec := allRulesets(t)["spec"]
	res := screening.Screen(boundBase(1_000_000), spec, "")
	if res.ComplianceStatus != "COMPLIANT" || len(res.DataQuality.Bounded) != 1 || len(res.DataQuality.CarriedForward) != 0 {
		t.Fatalf("%s %+v %s", res.ComplianceStatus, res.DataQuality, res.ComplianceExplanation)
	}
	b := res.DataQuality.Bounded[0]
	if b.Kind != "bounded" || b.Field != "interest_income" || b.WindowStart != "2025-04-01" || b.Months != 3 ||
		b.Assets.String() != "1000000" || b.RateBP.String() != "450" || b.MarginBP.String() != "100" ||
		b.Upper.String() != "13750" || b.Lower.String() != "0" || b.Revenue.String() != "1000000" {
		t.Fatalf("bounded %+v", b)
	}
	for _, m := range []string{"AAOIFI", "DJIM", "FTSE", "MSCI", "S&P"} {
		r := impureOf(t, res, m)
		if r.Pass == nil || !*r.Pass || r.Value != nil || r.Bound == nil || r.Bound.Decided != "pass" || r.Bound.ValueUpperPct != "1.3750" ||
			r.Bound.ValueLowerPct != "0.0000" || !strings.HasPrefix(r.Note, "passes on a bound") || !strings.Contains(r.Note, "13,750") {
			t.Fatalf("%s %+v %+v", m, r, r.Bound)
		}
	}
	for _, want := range []string{"bounded", "1,000,000", "4.50%", "1.00%", "13,750", "passes on the bound: AAOIFI impure revenue 0.0000%-1.3750% against 5.00%"} {
		if !strings.Contains(res.ComplianceExplanation, want) {
			t.Fatalf("explanation lacks %q: %s", want, res.ComplianceExplanation)
		}
	}
	// Marked wherever a person looks (MarksOf): the screening, each methodology and the bounded ratio,
	// and no other ratio.
	if m := screening.MarksOf(res); m.Label() != "on a bound" || len(res.DataQuality.Marks) != 1 || res.DataQuality.Marks[0].Kind != screening.MarkBounded {
		t.Fatalf("marks %+v (data_quality.marks %+v)", m, res.DataQuality.Marks)
	}
	for _, rr := range res.ByMethodology["AAOIFI"].Ratios {
		if marked := len(rr.Marks) == 1 && rr.Marks[0] == screening.MarkBounded; marked != (rr.Bound != nil) {
			t.Fatalf("ratio %s marks %v, bound %+v", rr.ID, rr.Marks, rr.Bound)
		}
	}
	// The sentence MCP tools and the agent write carries it (it includes the explanation).
	if s := screening.VerdictSentence(res); !strings.Contains(s, "bounded instead") {
		t.Fatalf("verdict sentence %q", s)
	}
	// So does the report's ratio line.
	var report string
	for _, s := range screening.ReportSections(res) {
		report += s.Body + "\n"
	}
	if !strings.Contains(report, "between 0.0000% and 1.3750% (on a bound: interest income not filed)") {
		t.Fatalf("report %s", report)
	}
	// The JSON carries the kind and the figures.
	j, _ := json.Marshal(res)
	for _, want := range []string{`"bounded":[{"kind":"bounded"`, `"upper_bound":13750`, `"decided":"pass"`} {
		if !strings.Contains(string(j), want) {
			t.Fatalf("JSON lacks %s", want)
		}
	}
}

// TestInterestBoundLargestQuarterEnd: the assets are the largest quarter-end balance filed in the 12
// months to the period end (its opening balance included); an older, larger one does not count, nor
// an illustrative one.
func TestInterestBoundLargestQuarterEnd(t *testing.T) {
	t.Parallel()
	in := boundBase(1_000_000)
	old := func(end string, cash int64, src string) shariah.Fundamentals {
		f := fact(cash)
		f.Source = src
		return shariah.Fundamentals{Symbol: "TEST", PeriodEnd: end, Period: "Q1", Facts: map[shariah.Field]shariah.Fact{shariah.CashAndSecurities: f}}
	}
	in.Fundamentals = append([]shariah.Fundamentals{old("2024-03-31", 50_000_000, shariah.SourceFiling), old("2024-09-30", 9_000_000, shariah.SourceIllustrative),
		old("2024-12-31", 2_000_000, shariah.SourceFiling)}, in.Fundamentals...)
	res := screening.Screen(in, allRulesets(t)["spec"], "")
	b := res.DataQuality.Bounded[0]
	if b.Assets.String() != "2000000" || b.AssetsAsOf != "2024-12-31" || len(b.AssetsFrom) != 2 || b.Upper.String() != "27500" {
		t.Fatalf("%+v", b)
	}
	if r := impureOf(t, res, "AAOIFI"); r.Bound.ValueUpperPct != "2.7500" || !*r.Pass {
		t.Fatalf("%+v", r.Bound)
	}
}

// TestInterestBoundFailsOnLowerBound: with impure revenue filed at 6% of revenue, the ratio's lower
// bound (interest income at 0) is already over 5%: it fails whatever the interest income.
func TestInterestBoundFailsOnLowerBound(t *testing.T) {
	t.Parallel()
	in := boundBase(1_000_000)
	in.Fundamentals[0].Facts[shariah.ImpureRevenue] = fact(60_000)
	res := screening.Screen(in, allRulesets(t)["spec"], "")
	r := impureOf(t, res, "AAOIFI")
	if r.Pass == nil || *r.Pass || r.Bound.Decided != "fail" || r.Bound.ValueLowerPct != "6.0000" || r.Bound.ValueUpperPct != "7.3750" ||
		res.Methodologies["AAOIFI"] != screening.NonCompliant || !strings.Contains(res.ComplianceExplanation, "fails on its lower bound") {
		t.Fatalf("%s %+v %+v %s", res.Methodologies["AAOIFI"], r, r.Bound, res.ComplianceExplanation)
	}
}

// TestInterestBoundStraddles: 4,000,000 of cash bounds interest income at 55,000, 5.5% of revenue; with
// nothing else in the numerator the ratio lies between 0% and 5.5%: no verdict, with the figures.
func TestInterestBoundStraddles(t *testing.T) {
	t.Parallel()
	res := screening.Screen(boundBase(4_000_000), allRulesets(t)["spec"], "")
	r := impureOf(t, res, "AAOIFI")
	mr := res.ByMethodology["AAOIFI"]
	if res.ComplianceStatus != "INSUFFICIENT_DATA" || r.Pass != nil || r.Bound.Decided != "straddles" || r.Bound.ValueUpperPct != "5.5000" ||
		mr.Verdict != screening.InsufficientData || !strings.Contains(mr.Reason, "straddles") || !strings.Contains(mr.Reason, "5.5000%") ||
		len(res.DataQuality.Bounded) != 1 || !strings.Contains(strings.Join(res.DataQuality.MissingFields, ","), "interest_income") {
		t.Fatalf("%s %+v %+v %q", res.ComplianceStatus, r, r.Bound, mr.Reason)
	}
}

// TestInterestBoundAtThreshold: a bound exactly at the threshold (55,000 of 1,100,000 = 5%) straddles a
// strict "less than" and passes "does not exceed".
func TestInterestBoundAtThreshold(t *testing.T) {
	t.Parallel()
	in := boundBase(4_000_000)
	in.Fundamentals[0].Facts[shariah.TotalRevenue] = fact(1_100_000)
	spec := *allRulesets(t)["spec"]
	if r := impureOf(t, screening.Screen(in, &spec, ""), "AAOIFI"); r.Bound.Decided != "straddles" || r.Bound.ValueUpperPct != "5.0000" {
		t.Fatalf("lt: %+v", r.Bound)
	}
	spec.Comparator = screening.CmpLE
	if r := impureOf(t, screening.Screen(in, &spec, ""), "AAOIFI"); r.Bound.Decided != "pass" || !*r.Pass {
		t.Fatalf("le: %+v", r.Bound)
	}
}

// TestInterestBoundSwitchedOff: a ruleset edition with bounded_inputs false leaves the ratio unknown
// (INSUFFICIENT_DATA as before bounds), and the field parses.
func TestInterestBoundSwitchedOff(t *testing.T) {
	t.Parallel()
	spec := *allRulesets(t)["spec"]
	no := false
	spec.BoundedInputs = &no
	res := screening.Screen(boundBase(1_000_000), &spec, "")
	r := impureOf(t, res, "AAOIFI")
	if res.ComplianceStatus != "INSUFFICIENT_DATA" || r.Pass != nil || r.Bound != nil || len(res.DataQuality.Bounded) != 0 ||
		strings.Contains(res.ComplianceExplanation, "bounded") {
		t.Fatalf("%s %+v %+v", res.ComplianceStatus, r, res.DataQuality)
	}
	rs, err := screening.ParseRuleset([]byte(`{"name":"x","edition_date":"2026-11-26","source":"s","review_status":"contract","comparator":"lt","bounded_inputs":false,
		"methodologies":[{"id":"aaoifi","name":"AAOIFI","business":[],"ratios":[{"id":"impure_revenue","numerator":["interest_income"],"denominator":"total_revenue","threshold_bp":500}]}]}`))
	if err != nil || rs.BoundsInputs() {
		t.Fatalf("%v %+v", err, rs)
	}
	if !allRulesets(t)["spec"].BoundsInputs() {
		t.Fatal("bounds are on by default")
	}
}

// TestInterestCarriedBeforeBound: a fiscal year within the last two that reported interest income is
// carried forward first; the bound is where that rule runs out.
func TestInterestCarriedBeforeBound(t *testing.T) {
	t.Parallel()
	in := boundBase(1_000_000)
	in.Fundamentals = append([]shariah.Fundamentals{{Symbol: "TEST", PeriodEnd: "2024-12-31", Period: "FY", FiscalYear: 2024,
		Facts: map[shariah.Field]shariah.Fact{shariah.InterestIncome: fact(100), shariah.TotalRevenue: fact(4_000_000)}}}, in.Fundamentals...)
	res := screening.Screen(in, allRulesets(t)["spec"], "")
	if len(res.DataQuality.CarriedForward) != 1 || len(res.DataQuality.Bounded) != 0 || impureOf(t, res, "AAOIFI").Bound != nil {
		t.Fatalf("%+v", res.DataQuality)
	}
	// Three years back is out of reach: the bound decides.
	in.Fundamentals[0].PeriodEnd, in.Fundamentals[0].FiscalYear = "2022-12-31", 2022
	res = screening.Screen(in, allRulesets(t)["spec"], "")
	if len(res.DataQuality.CarriedForward) != 0 || len(res.DataQuality.Bounded) != 1 {
		t.Fatalf("%+v", res.DataQuality)
	}
}

// TestInterestBoundRefused: no bound for a lender (its interest comes from loans the inputs do not
// carry), another reporting currency than the rate table's, cash that is not from a filing or is
// negative (a contradiction), or a period without revenue.
func TestInterestBoundRefused(t *testing.T) {
	t.Parallel()
	spec := allRulesets(t)["spec"]
	cases := map[string]func(*screening.ScreenInputs){
		"lender": func(in *screening.ScreenInputs) {
			in.Asset.Sector, in.Asset.Industry, in.Asset.SIC = "Financials", "Banks", "6021"
		},
		"currency": func(in *screening.ScreenInputs) { in.Fundamentals[0].Currency, in.Asset.Currency = "EUR", "EUR" },
		"illustrative": func(in *screening.ScreenInputs) {
			f := fact(1_000_000)
			f.Source = shariah.SourceIllustrative
			in.Fundamentals[0].Facts[shariah.CashAndSecurities] = f
		},
		"no cash":       func(in *screening.ScreenInputs) { delete(in.Fundamentals[0].Facts, shariah.CashAndSecurities) },
		"negative cash": func(in *screening.ScreenInputs) { in.Fundamentals[0].Facts[shariah.CashAndSecurities] = fact(-5) },
		"no revenue":    func(in *screening.ScreenInputs) { delete(in.Fundamentals[0].Facts, shariah.TotalRevenue) },
	}
	for name, change := range cases {
		in := boundBase(1_000_000)
		change(&in)
		res := screening.Screen(in, spec, "")
		if len(res.DataQuality.Bounded) != 0 || impureOf(t, res, "AAOIFI").Bound != nil ||
			!strings.Contains(strings.Join(res.DataQuality.Notes, " "), "interest_income not bounded") {
			t.Fatalf("%s: %+v", name, res.DataQuality)
		}
	}
}

// TestPolicyRateOver: the highest upper bound of the federal funds target range over a window.
func TestPolicyRateOver(t *testing.T) {
	t.Parallel()
	d := func(s string) time.Time { v, _ := time.Parse("2006-01-02", s); return v }
	cases := []struct {
		from, to string
		bp       int64
		ok       bool
	}{
		{"2025-04-01", "2025-06-30", 450, true}, // 4.25-4.50% until September 2025
		{"2023-10-01", "2024-09-30", 550, true}, // a fiscal year across two calendar years
		{"2020-04-01", "2020-06-30", 175, true}, // the year's highest, though cut in March: conservative
		{"2021-01-01", "2021-12-31", 25, true},
		{"2026-01-01", "2026-03-31", 375, true},
		{"2026-04-01", "2026-06-30", 450, true}, // 13 days past the table: one step of 75 bp
		{"2026-07-01", "2026-09-30", 600, true}, // 105 days past: three steps
		{"2027-07-01", "2027-09-30", 0, false},  // more than a year past the table
		{"2014-10-01", "2015-09-30", 0, false},  // before the table
		{"2025-06-30", "2025-04-01", 0, false},  // reversed
	}
	for _, c := range cases {
		bp, how, ok := market.PolicyRateOver(d(c.from), d(c.to))
		if bp != c.bp || ok != c.ok || (ok && how == "") {
			t.Errorf("%s..%s: %d %v %q, want %d %v", c.from, c.to, bp, ok, how, c.bp, c.ok)
		}
	}
	// The table is complete and ordered: a row per year from 2015.
	for i, r := range market.PolicyRates {
		if r.Year != 2015+i || r.MaxBP < 0 || r.Set == "" {
			t.Fatalf("row %d: %+v", i, r)
		}
	}
	_ = decimal.Zero
}

// TestReceivablesBound: receivables not reported are at most total assets less the cash and
// interest-bearing securities and the inventory filed beside them. Total assets 100,000,000, cash
// 1,000,000, inventory 64,000,000: receivables at most 35,000,000, 35% of total assets. AAOIFI (49%)
// and FTSE (50%) pass on the bound, MSCI's 33.33% straddles, DJIM and S&P (against a market cap of
// 1,000,000,000: at most 3.5%) pass. Off with bounded_inputs false.
func TestReceivablesBound(t *testing.T) {
	t.Parallel()
	in := boundBase(1_000_000)
	p := in.Fundamentals[0]
	p.Facts[shariah.InterestIncome] = fact(100) // filed: only receivables are bounded
	delete(p.Facts, shariah.Receivables)
	p.Facts[shariah.Inventory] = fact(64_000_000)
	p.Missing = map[shariah.Field]string{shariah.Receivables: "not reported: no AccountsReceivableNetCurrent"}
	spec := allRulesets(t)["spec"]
	res := screening.Screen(in, spec, "")
	if len(res.DataQuality.Bounded) != 1 {
		t.Fatalf("%+v", res.DataQuality)
	}
	b := res.DataQuality.Bounded[0]
	if b.Kind != "bounded" || b.Field != "receivables" || b.TotalAssets.String() != "100000000" || len(b.Less) != 2 ||
		b.Upper.String() != "35000000" || b.Lower.String() != "0" || b.Assets != nil || !strings.Contains(b.Method, "35,000,000") {
		t.Fatalf("%+v", b)
	}
	want := map[string]string{"AAOIFI": "pass", "FTSE": "pass", "MSCI": "straddles", "DJIM": "pass", "S&P": "pass"}
	for m, d := range want {
		r := ratioOf(t, res, m, "receivables")
		if r.Bound == nil || r.Bound.Decided != d || r.Bound.Field != "receivables" || (d == "pass") != (r.Pass != nil && *r.Pass) {
			t.Fatalf("%s: %+v %+v", m, r, r.Bound)
		}
	}
	if res.Methodologies["AAOIFI"] != screening.Compliant || res.Methodologies["MSCI"] != screening.InsufficientData ||
		!strings.Contains(res.ComplianceExplanation, "Receivables is not filed for 2025-06-30 Q2 and bounded instead") {
		t.Fatalf("%v %s", res.Methodologies, res.ComplianceExplanation)
	}
	if r := ratioOf(t, res, "AAOIFI", "receivables"); r.Bound.ValueUpperPct != "35.0000" {
		t.Fatalf("%+v", r.Bound)
	}
	// Without inventory filed, the bound is total assets less cash: 99%, straddling AAOIFI's 49%.
	delete(p.Facts, shariah.Inventory)
	if r := ratioOf(t, screening.Screen(in, spec, ""), "AAOIFI", "receivables"); r.Bound.Decided != "straddles" || r.Bound.ValueUpperPct != "99.0000" {
		t.Fatalf("%+v", r.Bound)
	}
	// Total assets smaller than their filed parts: a contradiction, no bound.
	p.Facts[shariah.CashAndSecurities] = fact(200_000_000)
	if res := screening.Screen(in, spec, ""); len(res.DataQuality.Bounded) != 0 || !strings.Contains(strings.Join(res.DataQuality.Notes, " "), "receivables not bounded") {
		t.Fatalf("%+v", res.DataQuality)
	}
	p.Facts[shariah.CashAndSecurities] = fact(1_000_000)
	off := *spec
	off.BoundedInputs = new(bool)
	if res := screening.Screen(in, &off, ""); len(res.DataQuality.Bounded) != 0 || ratioOf(t, res, "AAOIFI", "receivables").Pass != nil {
		t.Fatalf("off: %+v", res.DataQuality)
	}
}

// TestInterestBoundFiscalYear: a fiscal-year period's window is its 12 months, the same as its revenue:
// FY ending 2024-09-28 runs from 2023-09-29, whose calendar years' highest rate is 5.50% (2023 and
// 2024); 1,000,000 of cash bounds the year's interest at 1,000,000 x 6.50% = 65,000, 6.5% of revenue of
// 1,000,000: it straddles 5%; against revenue of 2,000,000 (3.25%) it passes.
func TestInterestBoundFiscalYear(t *testing.T) {
	t.Parallel()
	in := boundBase(1_000_000)
	p := &in.Fundamentals[0]
	p.PeriodEnd, p.Period, p.FiscalYear = "2024-09-28", "FY", 2024
	spec := allRulesets(t)["spec"]
	res := screening.Screen(in, spec, "")
	b := res.DataQuality.Bounded[0]
	if b.Months != 12 || b.WindowStart != "2023-09-29" || b.RateBP.String() != "550" || b.Upper.String() != "65000" ||
		impureOf(t, res, "AAOIFI").Bound.Decided != "straddles" || !strings.Contains(b.Method, "x 12/12") {
		t.Fatalf("%+v", b)
	}
	p.Facts[shariah.TotalRevenue] = fact(2_000_000)
	if r := impureOf(t, screening.Screen(in, spec, ""), "AAOIFI"); r.Bound.Decided != "pass" || r.Bound.ValueUpperPct != "3.2500" {
		t.Fatalf("%+v", r.Bound)
	}
}
