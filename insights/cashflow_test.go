package insights_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/insights"
)

const (
	ocfTag     = "us-gaap:NetCashProvidedByUsedInOperatingActivities"
	ocfContTag = "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"
	capexTag   = "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
	capexAlt   = "us-gaap:PaymentsToAcquireProductiveAssets"
)

// cf builds a 10-K fact.
func cf(concept, start, end, val, accn, filed string) filings.XBRLFact {
	return filings.XBRLFact{Concept: concept, Unit: "USD", Start: start, End: end, Value: shariah.NewNumber(decimal.RequireFromString(val)),
		Accession: accn, Form: "10-K", Filed: filed, FY: 2024, FP: "FY"}
}

// annual gives the OCF and capex facts of a September fiscal year filed in its 10-K.
func annual(fy int, ocf, capex string) []filings.XBRLFact {
	start, end := itoa(fy-1)+"-10-01", itoa(fy)+"-09-30"
	accn, filed := "0000000001-"+itoa(fy%100)+"-000001", itoa(fy)+"-11-01"
	return []filings.XBRLFact{cf(ocfTag, start, end, ocf, accn, filed), cf(capexTag, start, end, capex, accn, filed)}
}

func itoa(i int) string { return strconv.Itoa(i) }

func num(t *testing.T, n *shariah.Number, want, what string) {
	t.Helper()
	if n == nil {
		t.Fatalf("%s: nil, want %s", what, want)
	}
	if !n.Equal(decimal.RequireFromString(want)) {
		t.Fatalf("%s: %s, want %s", what, n, want)
	}
}

func TestCashflowLatestFilingWinsOnRestatement(t *testing.T) {
	t.Parallel()
	facts := []filings.XBRLFact{
		cf(ocfTag, "2022-10-01", "2023-09-30", "100", "0000000001-23-000001", "2023-11-01"),
		cf(capexTag, "2022-10-01", "2023-09-30", "10", "0000000001-23-000001", "2023-11-01"),
		// The next 10-K restates both as comparatives; an amendment then restates operating cash flow again.
		cf(ocfTag, "2022-10-01", "2023-09-30", "105", "0000000001-24-000001", "2024-11-01"),
		cf(capexTag, "2022-10-01", "2023-09-30", "12", "0000000001-24-000001", "2024-11-01"),
	}
	amend := cf(ocfTag, "2022-10-01", "2023-09-30", "107", "0000000001-25-000002", "2025-01-15")
	amend.Form = "10-K/A"
	facts = append(facts, amend)
	in := insights.CashflowOf(facts, "0000320193")
	if !in.Available || len(in.Years) != 1 {
		t.Fatalf("%+v", in)
	}
	y := in.Years[0]
	num(t, y.OperatingCashFlow, "107", "ocf")
	num(t, y.CapitalExpenditure, "12", "capex")
	num(t, y.FreeCashFlow, "95", "fcf")
	if y.FiscalYear != 2023 || y.PeriodStart != "2022-10-01" || y.PeriodEnd != "2023-09-30" {
		t.Fatalf("period %+v", y)
	}
	if s := y.Sources["operating_cash_flow"]; s.Accession != "0000000001-25-000002" || s.Form != "10-K/A" || s.Filed != "2025-01-15" ||
		s.Concept != ocfTag || s.URL != "https://www.sec.gov/Archives/edgar/data/320193/000000000125000002/" {
		t.Fatalf("ocf source %+v", s)
	}
	if s := y.Sources["capital_expenditure"]; s.Accession != "0000000001-24-000001" || s.Concept != capexTag {
		t.Fatalf("capex source %+v", s)
	}
	if s := insights.CashflowOf(facts, "").Years[0].Sources["operating_cash_flow"]; s.URL != "" {
		t.Fatalf("url without cik: %q", s.URL)
	}
}

func TestCashflowIgnoresQuarterlyAndYTD(t *testing.T) {
	t.Parallel()
	facts := annual(2024, "1000", "100")
	q := cf(ocfTag, "2024-10-01", "2024-12-28", "300", "0000000001-25-000003", "2025-01-31")
	q.Form = "10-Q"
	ytd := cf(ocfTag, "2024-10-01", "2025-03-29", "600", "0000000001-25-000004", "2025-05-02")
	ytd.Form = "10-Q"
	// A six-month period in a 10-K (a transition period) and an annual value from a 10-Q are not counted.
	half := cf(ocfTag, "2025-04-01", "2025-09-30", "500", "0000000001-25-000005", "2025-11-01")
	annualInQ := cf(capexTag, "2024-10-01", "2025-09-30", "90", "0000000001-25-000006", "2025-08-01")
	annualInQ.Form = "10-Q"
	eur := cf(ocfTag, "2024-10-01", "2025-09-30", "900", "0000000001-25-000007", "2025-11-01")
	eur.Unit = "EUR"
	in := insights.CashflowOf(append(facts, q, ytd, half, annualInQ, eur), "")
	if len(in.Years) != 1 || in.Years[0].FiscalYear != 2024 {
		t.Fatalf("years %+v", in.Years)
	}
	num(t, in.Years[0].OperatingCashFlow, "1000", "ocf")
}

func TestCashflowFallbackConcepts(t *testing.T) {
	t.Parallel()
	facts := []filings.XBRLFact{
		cf(ocfContTag, "2023-01-01", "2023-12-31", "500", "a-23", "2024-02-01"),
		cf(capexAlt, "2023-01-01", "2023-12-31", "50", "a-23", "2024-02-01"),
		// In 2024 both are reported: the preferred concepts win.
		cf(ocfContTag, "2024-01-01", "2024-12-31", "610", "a-24", "2025-02-01"),
		cf(ocfTag, "2024-01-01", "2024-12-31", "600", "a-24", "2025-02-01"),
		cf(capexAlt, "2024-01-01", "2024-12-31", "70", "a-24", "2025-02-01"),
		cf(capexTag, "2024-01-01", "2024-12-31", "60", "a-24", "2025-02-01"),
	}
	in := insights.CashflowOf(facts, "")
	if len(in.Years) != 2 {
		t.Fatalf("%+v", in)
	}
	y23, y24 := in.Years[0], in.Years[1]
	num(t, y23.OperatingCashFlow, "500", "2023 ocf")
	num(t, y23.CapitalExpenditure, "50", "2023 capex")
	if y23.Sources["operating_cash_flow"].Concept != ocfContTag || y23.Sources["capital_expenditure"].Concept != capexAlt {
		t.Fatalf("2023 sources %+v", y23.Sources)
	}
	num(t, y24.OperatingCashFlow, "600", "2024 ocf")
	num(t, y24.CapitalExpenditure, "60", "2024 capex")
	if y24.Sources["operating_cash_flow"].Concept != ocfTag || y24.Sources["capital_expenditure"].Concept != capexTag {
		t.Fatalf("2024 sources %+v", y24.Sources)
	}
}

func TestCashflowFreeCashFlowExactAndMissing(t *testing.T) {
	t.Parallel()
	facts := annual(2024, "118254000000.17", "9447000000.09")
	// 2023 has no capex: no free cash flow, no capex source.
	facts = append(facts, cf(ocfTag, "2022-10-01", "2023-09-30", "0.30", "x", "2023-11-01"))
	in := insights.CashflowOf(facts, "")
	if len(in.Years) != 2 {
		t.Fatalf("%+v", in)
	}
	num(t, in.Years[1].FreeCashFlow, "108807000000.08", "fcf")
	if y := in.Years[0]; y.FreeCashFlow != nil || y.CapitalExpenditure != nil || len(y.Sources) != 1 {
		t.Fatalf("2023 %+v", y)
	}
	b, err := json.Marshal(in.Years[1])
	if err != nil || !strings.Contains(string(b), `"free_cash_flow":108807000000.08`) || !strings.Contains(string(b), `"fiscal_year":2024`) {
		t.Fatalf("json %s %v", b, err)
	}
}

func TestCashflowFiscalYearFromPeriodEnd(t *testing.T) {
	t.Parallel()
	// A retailer's 52-week year ending on 2024-01-03 is fiscal 2023; the FY of the fact (the filing's) is ignored.
	f := cf(ocfTag, "2023-01-05", "2024-01-03", "1", "r", "2024-03-01")
	f.FY = 2024
	g := cf(ocfTag, "2024-01-04", "2025-01-08", "1", "r2", "2025-03-01") // 370 days, ends after Jan 7
	in := insights.CashflowOf([]filings.XBRLFact{f, g}, "")
	if len(in.Years) != 2 || in.Years[0].FiscalYear != 2023 || in.Years[1].FiscalYear != 2025 {
		t.Fatalf("%+v", in.Years)
	}
}

func TestCashflowKeepsLastFiveYears(t *testing.T) {
	t.Parallel()
	var facts []filings.XBRLFact
	for fy := 2017; fy <= 2024; fy++ {
		facts = append(facts, annual(fy, "100", "10")...)
	}
	in := insights.CashflowOf(facts, "")
	if len(in.Years) != 5 || in.Years[0].FiscalYear != 2020 || in.Years[4].FiscalYear != 2024 {
		t.Fatalf("%+v", in.Years)
	}
}

func TestCashflowTrend(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		facts   []filings.XBRLFact
		trend   string
		summary string
	}{
		{"stable, middle year and older years ignored", join(annual(2021, "1", "1"), annual(2022, "121000000000", "10708000000"),
			annual(2023, "110543000000", "10959000000"), annual(2024, "118254000000", "9447000000")),
			"stable", "Free cash flow fell from 110.29B (FY2022) to 108.81B (FY2024): stable."},
		{"improving", join(annual(2022, "100", "20"), annual(2023, "50", "5"), annual(2024, "100", "15.99")),
			"improving", "Free cash flow rose from 80.00 (FY2022) to 84.01 (FY2024): improving."},
		{"stable at the band", join(annual(2022, "100", "20"), annual(2024, "100", "16")),
			"stable", "Free cash flow rose from 80.00 (FY2022) to 84.00 (FY2024): stable."},
		{"declining", join(annual(2023, "2000000", "0"), annual(2024, "1500000", "0")),
			"declining", "Free cash flow fell from 2.00M (FY2023) to 1.50M (FY2024): declining."},
		{"negative base", join(annual(2022, "-1000", "0"), annual(2024, "-900", "0")),
			"improving", "Free cash flow rose from -1.00K (FY2022) to -900.00 (FY2024): improving."},
		{"unchanged", join(annual(2023, "7", "2"), annual(2024, "7", "2")),
			"stable", "Free cash flow was unchanged from 5.00 (FY2023) to 5.00 (FY2024): stable."},
		{"operating cash flow without capex", []filings.XBRLFact{
			cf(ocfTag, "2021-10-01", "2022-09-30", "100", "a", "2022-11-01"),
			cf(ocfTag, "2023-10-01", "2024-09-30", "90", "b", "2024-11-01"),
			cf(capexTag, "2023-10-01", "2024-09-30", "5", "b", "2024-11-01")},
			"declining", "Operating cash flow fell from 100.00 (FY2022) to 90.00 (FY2024): declining."},
		{"one year", annual(2024, "10", "1"),
			"insufficient_data", "Not enough fiscal years of cash-flow data for a trend (FY2022-FY2024)."},
		{"gap beyond the window", join(annual(2020, "10", "1"), annual(2024, "50", "1")),
			"insufficient_data", "Not enough fiscal years of cash-flow data for a trend (FY2022-FY2024)."},
	} {
		in := insights.CashflowOf(c.facts, "")
		if in.Trend != c.trend || in.Summary != c.summary || !in.Available {
			t.Errorf("%s: %q %q", c.name, in.Trend, in.Summary)
		}
	}
}

func TestCashflowNoFacts(t *testing.T) {
	t.Parallel()
	for _, facts := range [][]filings.XBRLFact{nil, {cf("us-gaap:Assets", "", "2024-09-30", "1", "a", "2024-11-01")}} {
		in := insights.CashflowOf(facts, "320193")
		if in.Available || in.Reason == "" || len(in.Years) != 0 || in.Trend != "insufficient_data" {
			t.Fatalf("%+v", in)
		}
		b, _ := json.Marshal(in)
		if !strings.Contains(string(b), `"years":[]`) || !strings.Contains(string(b), `"available":false`) {
			t.Fatalf("json %s", b)
		}
	}
}

func join(fss ...[]filings.XBRLFact) []filings.XBRLFact {
	var out []filings.XBRLFact
	for _, fs := range fss {
		out = append(out, fs...)
	}
	return out
}
