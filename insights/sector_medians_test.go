package insights_test

import (
	"encoding/json"
	"testing"

	"github.com/shariah-screen/shariah/insights"
)

func TestMedian(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   []float64
		want any
	}{{nil, nil}, {[]float64{0.3}, 0.3}, {[]float64{0.5, 0.1, 0.3}, 0.3}, {[]float64{0.4, 0.1, 0.2, 0.3}, 0.25}, {[]float64{0.1, 0.2}, 0.15}} {
		got := insights.Median(c.in)
		switch {
		case c.want == nil && got != nil, c.want != nil && (got == nil || *got != c.want.(float64)):
			t.Errorf("median %v: %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCalendarQuarter(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"2025-09-27": "2025-Q3", "2025-01-01": "2025-Q1", "2024-12-31": "2024-Q4", "2025-06-30": "2025-Q2", "x": ""} {
		if got := insights.CalendarQuarter(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// Per sector and calendar quarter: odd and even counts, a ratio no company has (null), a company with
// two quarters ending in one calendar quarter (the later counts), the window of the latest quarters
// shared by every sector, quarters before it dropped.
func TestSectorMediansOf(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	pt := func(end string, debt, cash *float64) insights.TrajectoryPoint {
		return insights.TrajectoryPoint{PeriodEnd: end, DebtAssets: debt, CashAssets: cash}
	}
	by := map[string][]insights.TrajectoryPoint{
		"A": {pt("2025-03-29", f(0.10), f(0.2)), pt("2025-06-28", f(0.20), f(0.3))},
		"B": {pt("2025-03-31", f(0.30), nil), pt("2025-06-30", f(0.40), nil)},
		"C": {pt("2025-06-01", f(0.90), nil), pt("2025-06-29", f(0.60), nil)},
		"D": {pt("2024-06-30", f(0.5), nil), pt("2025-03-31", f(0.5), nil)},
		"E": {pt("2025-06-30", nil, nil)},
	}
	sectors := map[string]string{"A": "Tech", "B": "Tech", "C": "Tech", "D": "Energy", "E": ""}
	got := insights.SectorMediansOf(by, sectors, 2)
	b, _ := json.Marshal(got)
	want := `[{"sector":"Energy","quarters":[{"quarter":"2025-Q1","companies":1,"debt_to_assets":0.5,"cash_to_assets":null,"liquidity_to_assets":null,"interest_to_revenue":null},` +
		`{"quarter":"2025-Q2","companies":0,"debt_to_assets":null,"cash_to_assets":null,"liquidity_to_assets":null,"interest_to_revenue":null}]},` +
		`{"sector":"Tech","quarters":[{"quarter":"2025-Q1","companies":2,"debt_to_assets":0.2,"cash_to_assets":0.2,"liquidity_to_assets":null,"interest_to_revenue":null},` +
		`{"quarter":"2025-Q2","companies":3,"debt_to_assets":0.4,"cash_to_assets":0.3,"liquidity_to_assets":null,"interest_to_revenue":null}]},` +
		`{"sector":"Unclassified","quarters":[{"quarter":"2025-Q1","companies":0,"debt_to_assets":null,"cash_to_assets":null,"liquidity_to_assets":null,"interest_to_revenue":null},` +
		`{"quarter":"2025-Q2","companies":1,"debt_to_assets":null,"cash_to_assets":null,"liquidity_to_assets":null,"interest_to_revenue":null}]}]`
	if string(b) != want {
		t.Fatalf("medians\n got %s\nwant %s", b, want)
	}
	if got := insights.SectorMediansOf(nil, nil, 8); got == nil || len(got) != 0 {
		t.Fatalf("no data: %v", got)
	}
	// Across a year boundary.
	q := insights.SectorMediansOf(map[string][]insights.TrajectoryPoint{"A": {pt("2025-02-01", f(0.1), nil)}}, nil, 3)
	if len(q) != 1 || q[0].Quarters[0].Quarter != "2024-Q3" || q[0].Quarters[2].Quarter != "2025-Q1" {
		t.Fatalf("window %+v", q)
	}
}
