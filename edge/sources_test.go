package edge_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// fileFundamentals stores filed fundamentals for symbols (replacing their illustrative ones). Without
// shares outstanding no market cap is computed, so no illustrative price enters their screenings: they
// stand on filings alone.
func fileFundamentals(t *testing.T, e *env, syms ...string) {
	t.Helper()
	fact := func(v int64) shariah.Fact {
		return shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(v)), Source: shariah.SourceFiling, Ref: "0000000000-26-000001", Form: "10-K", Filed: "2026-02-01"}
	}
	by := map[string][]shariah.Fundamentals{}
	for _, sym := range syms {
		by[sym] = []shariah.Fundamentals{{Symbol: sym, PeriodEnd: "2025-12-31", Period: "FY", FiscalYear: 2025, Currency: "USD",
			Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: fact(1000), shariah.TotalDebt: fact(100), shariah.CashAndSecurities: fact(50),
				shariah.Receivables: fact(80), shariah.TotalRevenue: fact(400), shariah.InterestIncome: fact(2), shariah.ImpureRevenue: fact(0)}}}
	}
	if err := e.ref.PutFundamentals(context.Background(), by); err != nil {
		t.Fatal(err)
	}
}

// TestDataSourcesFiledIllustrativeAndCompanies mixes filed and illustrative fundamentals: GOOG (added,
// sharing GOOGL's CIK), GOOGL and MSFT filed; AAPL and KO illustrative (the default universe); NOFU an
// equity with no fundamentals. A bulk run and a portfolio scan count results and distinct companies by
// source, the SPUS look-through counts its holdings and their weight, and the database stats count the
// equities.
func TestDataSourcesFiledIllustrativeAndCompanies(t *testing.T) {
	t.Parallel()
	e := setup(t, options{worker: true})
	ctx := context.Background()
	k := key(e.newKey(t, account.PlanEnterprise))
	if err := e.ref.PutAssets(ctx, []shariah.Asset{
		{Symbol: "GOOG", Name: "Alphabet Inc. Class C", Type: shariah.Equity, Exchange: "NASDAQ", Country: "United States", Currency: "USD",
			Sector: "Communication Services", CIK: "0001652044"},
		{Symbol: "NOFU", Name: "No Fundamentals Corp", Type: shariah.Equity, Exchange: "NYSE", Country: "United States", Currency: "USD",
			Sector: "Industrials"}}); err != nil {
		t.Fatal(err)
	}
	fileFundamentals(t, e, "GOOG", "GOOGL", "MSFT")
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)
	counts := func(v any) [3]float64 {
		m := v.(map[string]any)
		return [3]float64{m["filed"].(float64), m["illustrative"].(float64), m["no_fundamentals"].(float64)}
	}

	// Bulk: six results, five companies (GOOG and GOOGL are one).
	putIndex(t, e, "SRC6", "GOOG", "GOOGL", "MSFT", "AAPL", "KO", "NOFU")
	start := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "SRC6"}, k)
	if start.StatusCode != 202 {
		t.Fatalf("start: %d %s", start.StatusCode, start.body)
	}
	id := start.json(t)["run_id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := e.do(t, "GET", "/api/screen-bulk/status?run_id="+id, nil, k).json(t)
		if st["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run not completed: %v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sum := e.do(t, "GET", "/api/screen-bulk/"+id+"/summary", nil, k).json(t)["summary"].(map[string]any)
	if got := counts(sum["data_sources"]); got != [3]float64{3, 2, 1} {
		t.Errorf("bulk results by source %v, want filed 3, illustrative 2, no_fundamentals 1", got)
	}
	if got := counts(sum["company_data_sources"]); got != [3]float64{2, 2, 1} {
		t.Errorf("bulk companies by source %v, want filed 2, illustrative 2, no_fundamentals 1", got)
	}
	// The stats count the cached results the run wrote by the same classification.
	if st := e.do(t, "GET", "/api/database/stats", nil, k).json(t); st["screening_results"] != 6.0 ||
		counts(st["screening_results_by_source"]) != [3]float64{3, 2, 1} {
		t.Errorf("stats after the run: results %v by source %v, want 6: filed 3, illustrative 2, no_fundamentals 1",
			st["screening_results"], st["screening_results_by_source"])
	}

	// Portfolio: a symbol given twice is one holding (AAPL counts once), two share classes count once
	// among the companies; the unknown symbol is not counted.
	scan := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": []string{"GOOG", "googl", "MSFT", "AAPL", "aapl", "NOFU", "NOPE123"}}, k).json(t)
	ps := scan["summary"].(map[string]any)
	if got := counts(ps["data_sources"]); got != [3]float64{3, 1, 1} {
		t.Errorf("portfolio results by source %v", got)
	}
	if got := counts(ps["company_data_sources"]); got != [3]float64{2, 1, 1} {
		t.Errorf("portfolio companies by source %v", got)
	}
	for _, it := range scan["results"].(map[string]any) {
		it := it.(map[string]any)
		want := map[string]string{"GOOG": "filed", "GOOGL": "filed", "MSFT": "filed", "AAPL": "illustrative", "NOFU": "no_fundamentals"}[it["symbol"].(string)]
		if ds, _ := it["data_source"].(string); ds != want {
			t.Errorf("portfolio item %v: data_source %q, want %q", it["symbol"], ds, want)
		}
	}

	// ETF: of SPUS's ten lines, MSFT (11.80%) and GOOGL (6.40%) stand on filings, seven holdings on
	// illustrative numbers (40.00%), and the unresolved line (41.80%) has none.
	etf := e.do(t, "POST", "/api/etf/SPUS/screen", map[string]any{}, k)
	if etf.StatusCode != 200 {
		t.Fatalf("etf screen: %d %s", etf.StatusCode, etf.body)
	}
	r := etf.json(t)
	if got := counts(r["data_sources"]); got != [3]float64{2, 7, 1} {
		t.Errorf("etf holdings by source %v", got)
	}
	w := r["data_source_weights"].(map[string]any)
	if w["filed_pct"] != "18.20" || w["illustrative_pct"] != "40.00" || w["no_fundamentals_pct"] != "41.80" {
		t.Errorf("etf weight by source %v", w)
	}

	// Stats: 35 equities, 3 with filed fundamentals, NOFU with none, the rest illustrative.
	st := e.do(t, "GET", "/api/database/stats", nil, k).json(t)
	if st["equities"] != 35.0 || counts(st["fundamentals_by_source"]) != [3]float64{3, 31, 1} {
		t.Errorf("stats %v", st)
	}
	rs := counts(st["screening_results_by_source"])
	if rs[0]+rs[1]+rs[2] != st["screening_results"].(float64) {
		t.Errorf("results by source %v do not add up to %v results", rs, st["screening_results"])
	}
}
