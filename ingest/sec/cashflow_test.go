package sec

import (
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/insights"
)

// TestRealAAPLCashflow runs ScreeningFacts then insights.CashflowOf on Apple's companyfacts. The figures
// were read in the JSON before being asserted (us-gaap NetCashProvidedByUsedInOperatingActivities and
// PaymentsToAcquirePropertyPlantAndEquipment, USD, annual durations of 10-K filings, latest filed) and
// agree with Apple's FY2024 10-K (0000320193-24-000123, filed 2024-11-01): operating cash flow
// 118,254 million, capex 9,447 million, so free cash flow 108,807 million for 2023-10-01..2024-09-28.
func TestRealAAPLCashflow(t *testing.T) {
	t.Parallel()
	cf, err := ParseCompanyFacts(dataFile(t, "fairvalue/sec-filing-companyfacts-AAPL.json"))
	if err != nil {
		t.Fatal(err)
	}
	facts := ScreeningFacts(cf)
	in := insights.CashflowOf(facts, string(cf.CIK))
	if !in.Available || len(in.Years) != 5 {
		t.Fatalf("%+v", in)
	}
	const k24 = "0000320193-24-000123"
	for i, w := range []struct {
		fy                     int
		start, end, ocf, capex string
		fcf, accn              string
	}{
		{2020, "2019-09-29", "2020-09-26", "80674000000", "7309000000", "73365000000", "0000320193-22-000108"},
		{2021, "2020-09-27", "2021-09-25", "104038000000", "11085000000", "92953000000", "0000320193-23-000106"},
		{2022, "2021-09-26", "2022-09-24", "122151000000", "10708000000", "111443000000", k24},
		{2023, "2022-09-25", "2023-09-30", "110543000000", "10959000000", "99584000000", k24},
		{2024, "2023-10-01", "2024-09-28", "118254000000", "9447000000", "108807000000", k24},
	} {
		y := in.Years[i]
		if y.FiscalYear != w.fy || y.PeriodStart != w.start || y.PeriodEnd != w.end {
			t.Fatalf("year %d: %+v", i, y)
		}
		wantNumber(t, y.OperatingCashFlow, w.ocf, "ocf", w.fy)
		wantNumber(t, y.CapitalExpenditure, w.capex, "capex", w.fy)
		wantNumber(t, y.FreeCashFlow, w.fcf, "fcf", w.fy)
		// Each year comes from the latest 10-K that reported it (a 10-K repeats the two prior years).
		for _, src := range []string{"operating_cash_flow", "capital_expenditure"} {
			if s := y.Sources[src]; s.Accession != w.accn || s.Form != "10-K" {
				t.Errorf("FY%d %s source %+v", w.fy, src, s)
			}
		}
	}
	if s := in.Years[4].Sources["operating_cash_flow"]; s.Concept != "us-gaap:NetCashProvidedByUsedInOperatingActivities" ||
		s.Filed != "2024-11-01" || s.URL != "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/" {
		t.Errorf("FY2024 source %+v", s)
	}
	// FCF FY2022 111,443M -> FY2024 108,807M: -2.4%, within the ±5% band.
	if in.Trend != insights.TrendStable || in.Summary != "Free cash flow fell from 111.44B (FY2022) to 108.81B (FY2024): stable." {
		t.Errorf("trend %q %q", in.Trend, in.Summary)
	}

	// A real restatement: the FY2017 10-K (0000320193-17-000070) reported FY2017 operating cash flow of
	// 63,598 million; the FY2018 10-K (0000320193-18-000145) and FY2019 10-K restated it to 64,225 million.
	// Facts up to fiscal 2018 put FY2017 in the window; the latest filing wins.
	var upTo2018 []filings.XBRLFact
	for _, f := range facts {
		if f.End <= "2018-09-29" {
			upTo2018 = append(upTo2018, f)
		}
	}
	old := insights.CashflowOf(upTo2018, string(cf.CIK))
	if len(old.Years) != 5 || old.Years[3].FiscalYear != 2017 {
		t.Fatalf("%+v", old.Years)
	}
	wantNumber(t, old.Years[3].OperatingCashFlow, "64225000000", "restated ocf", 2017)
	if s := old.Years[3].Sources["operating_cash_flow"]; s.Accession != "0000320193-19-000119" {
		t.Errorf("FY2017 source %+v", s)
	}
}

func wantNumber(t *testing.T, n *shariah.Number, want, what string, fy int) {
	t.Helper()
	if n == nil || !n.Equal(decimal.RequireFromString(want)) {
		t.Errorf("FY%d %s: %v, want %s", fy, what, n, want)
	}
}
