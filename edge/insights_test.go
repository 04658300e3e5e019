package edge_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest/news"
	"github.com/shariah-screen/shariah/market"
)

// widgets builds a small sector of hand-made companies: WTGT (the one asked about, US, cap 10B, too
// much debt), WA (US, 12B), WB (US, 100B), WC (Germany, 10B), WD (US, 11B, too much debt) and WE (US,
// no market cap). Debt is the only ratio that differs.
func widgets(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	type co struct {
		sym, country string
		capB, debt   int64 // market cap in billions (0: none); debt per 1000 of assets
	}
	cos := []co{{"WTGT", "United States", 10, 500}, {"WA", "United States", 12, 100}, {"WB", "United States", 100, 50},
		{"WC", "Germany", 10, 10}, {"WD", "United States", 11, 400}, {"WE", "United States", 0, 200}}
	var assets []shariah.Asset
	funds := map[string][]shariah.Fundamentals{}
	num := func(n int64) shariah.Number { return shariah.NewNumber(decimal.NewFromInt(n)) }
	fact := func(n int64) shariah.Fact {
		return shariah.Fact{Value: num(n), Source: shariah.SourceFiling, Ref: "0000000000-26-000001"}
	}
	for _, c := range cos {
		assets = append(assets, shariah.Asset{Symbol: c.sym, Name: c.sym + " Widgets Inc", Type: shariah.Equity, Country: c.country,
			Sector: "Widgets", Industry: "Widget Makers", Currency: "USD"})
		funds[c.sym] = []shariah.Fundamentals{{Symbol: c.sym, PeriodEnd: "2026-06-30", Period: "Q2", Facts: map[shariah.Field]shariah.Fact{
			shariah.TotalAssets: fact(1000), shariah.TotalDebt: fact(c.debt), shariah.CashAndSecurities: fact(100 + c.debt/10),
			shariah.Receivables: fact(100), shariah.TotalRevenue: fact(1000), shariah.InterestIncome: fact(c.debt / 100),
			shariah.ImpureRevenue: fact(0), shariah.SharesOutstanding: fact(1000)}}}
	}
	if err := e.ref.PutAssets(ctx, assets); err != nil {
		t.Fatal(err)
	}
	if err := e.ref.PutFundamentals(ctx, funds); err != nil {
		t.Fatal(err)
	}
	for _, c := range cos {
		if c.capB == 0 {
			continue
		}
		mc := num(c.capB * 1_000_000_000)
		if err := e.ref.PutQuote(ctx, market.Quote{Symbol: c.sym, Currency: "USD", MarketCap: &mc, AsOf: "2026-11-20", Source: shariah.SourceHistory}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAlternativesRankingOnAHandBuiltSector(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	widgets(t, e)
	k := key(e.newKey(t, account.PlanPro))
	var r response
	deadline := time.Now().Add(5 * time.Second)
	for r = e.do(t, "GET", "/api/insights/WTGT/alternatives?methodology=aaoifi&limit=10", nil, k); r.StatusCode != 200; r = e.do(t, "GET", "/api/insights/WTGT/alternatives?methodology=aaoifi&limit=10", nil, k) {
		if time.Now().After(deadline) {
			t.Fatalf("alternatives: %d %s", r.StatusCode, r.body)
		}
		time.Sleep(100 * time.Millisecond) // the catalog reloads on the new version
	}
	m := r.json(t)
	if m["compliance_status"] == "COMPLIANT" {
		t.Fatalf("WTGT (debt 50%% of assets) should not be compliant: %s", r.body)
	}
	var got []string
	for _, a := range m["alternatives"].([]any) {
		got = append(got, a.(map[string]any)["symbol"].(string))
	}
	// Same country first (WA: cap ratio 1.2, WB: 10, WE: no cap), then Germany (WC); WD is not compliant.
	want := []string{"WA", "WB", "WE", "WC"}
	if len(got) != len(want) {
		t.Fatalf("alternatives %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("alternatives %v, want %v", got, want)
		}
	}
	r = e.do(t, "GET", "/api/insights/WTGT/alternatives?methodology=aaoifi&limit=2", nil, k)
	if alts := r.json(t)["alternatives"].([]any); len(alts) != 2 {
		t.Fatalf("limit 2: %s", r.body)
	}
	for _, bad := range []string{"?limit=0", "?limit=51", "?ruleset=nope"} {
		if r = e.do(t, "GET", "/api/insights/WTGT/alternatives"+bad, nil, k); r.StatusCode != 422 {
			t.Fatalf("%s: %d", bad, r.StatusCode)
		}
	}
	if r = e.do(t, "GET", "/api/insights/SPUS/alternatives", nil, k); r.StatusCode != 422 {
		t.Fatalf("an ETF: %d", r.StatusCode)
	}

	// Peer percentiles: WTGT's debt/assets (0.5) is above all five peers (0.2, 0.1, 0.05, 0.01, 0.4).
	r = e.do(t, "GET", "/api/insights/WTGT/peer-percentiles", nil, k)
	m = r.json(t)
	debt := m["ratios"].(map[string]any)["debt_to_assets"].(map[string]any)
	if m["peers"].(float64) != 5 || debt["value"].(float64) != 0.5 || debt["percentile"].(float64) != 100 || debt["peer_median"].(float64) != 0.1 {
		t.Fatalf("peer percentiles: %s", r.body)
	}
	r = e.do(t, "GET", "/api/insights/WB/peer-percentiles", nil, k)
	debt = r.json(t)["ratios"].(map[string]any)["debt_to_assets"].(map[string]any)
	if debt["percentile"].(float64) != 20 { // one of five peers (WC, 0.01) is lower
		t.Fatalf("WB debt percentile: %v", debt)
	}
	// New fundamentals (a new reference-data version) are seen at once, not after the cache's TTL:
	// WB's debt rises to 0.45, above the four other peers but WTGT.
	ctx := context.Background()
	fs, _ := e.ref.Fundamentals(ctx, "WB")
	fs[0].Facts[shariah.TotalDebt] = shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(450)), Source: shariah.SourceFiling}
	if err := e.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"WB": fs}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		r = e.do(t, "GET", "/api/insights/WB/peer-percentiles", nil, k)
		debt = r.json(t)["ratios"].(map[string]any)["debt_to_assets"].(map[string]any)
		if debt["percentile"].(float64) == 80 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("WB after new fundamentals: %v", debt)
		}
		time.Sleep(100 * time.Millisecond) // the edge's reference cache may lag a few seconds
	}
	if r = e.do(t, "GET", "/api/insights/NOPE123/peer-percentiles", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown symbol: %d", r.StatusCode)
	}
}

func TestTrajectoryAndStaleness(t *testing.T) {
	t.Parallel()
	e := setup(t, options{eventRelevance: news.RelevanceFor8K})
	ingestEXA(t, e)
	k := key(e.newKey(t, account.PlanPro))

	r := e.do(t, "GET", "/api/insights/EXA/trajectory", nil, k)
	m := r.json(t)
	qs := m["quarters"].([]any)
	if r.StatusCode != 200 || len(qs) == 0 || len(qs) > 8 || m["summary"] == "" {
		t.Fatalf("trajectory: %d %s", r.StatusCode, r.body)
	}
	prev := ""
	for _, q := range qs {
		pe := q.(map[string]any)["period_end"].(string)
		if pe <= prev {
			t.Fatalf("quarters not oldest first: %s", r.body)
		}
		prev = pe
	}
	// A symbol without filings has an empty trajectory.
	if r = e.do(t, "GET", "/api/insights/MSFT/trajectory", nil, k); r.StatusCode != 200 || len(r.json(t)["quarters"].([]any)) != 0 {
		t.Fatalf("no trajectory: %d %s", r.StatusCode, r.body)
	}

	// Never screened: nothing to be stale.
	if r = e.do(t, "GET", "/api/insights/EXA/staleness", nil, k); r.StatusCode != 404 {
		t.Fatalf("staleness before a screening: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "GET", "/api/screen/EXA", nil, k); r.StatusCode != 200 {
		t.Fatalf("screen: %d %s", r.StatusCode, r.body)
	}
	r = e.do(t, "GET", "/api/insights/EXA/staleness", nil, k)
	m = r.json(t)
	if r.StatusCode != 200 || m["stale"] != false {
		t.Fatalf("fresh screening: %d %s", r.StatusCode, r.body)
	}
	// A material 8-K filed after the screening makes it stale.
	ctx := context.Background()
	fs, _ := e.ingest.Filings(ctx, "EXA")
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	fs = append([]filings.Filing{{Accession: "0001234567-26-000099", Form: "8-K", FilingDate: tomorrow, ReportDate: tomorrow,
		Items: []string{"1.03"}, URL: "https://www.sec.gov/Archives/edgar/data/1234567/000123456726000099/x.htm"}}, fs...)
	if err := e.ingest.PutFilings(ctx, "EXA", fs); err != nil {
		t.Fatal(err)
	}
	r = e.do(t, "GET", "/api/insights/EXA/staleness", nil, k)
	m = r.json(t)
	if m["stale"] != true || len(m["material_filings_since_screening"].([]any)) != 1 {
		t.Fatalf("after a bankruptcy 8-K: %s", r.body)
	}
}

func TestCashflowInsight(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	ingestEXA(t, e)
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "GET", "/api/insights/EXA/cashflow", nil, k)
	if m := r.json(t); r.StatusCode != 200 || m["available"] != false || m["reason"] == "" {
		t.Fatalf("no cash-flow facts: %d %s", r.StatusCode, r.body)
	}
	ctx := context.Background()
	facts, _ := e.ingest.Facts(ctx, "EXA")
	add := func(concept, start, end string, v int64, acc string) {
		facts = append(facts, filings.XBRLFact{Concept: "us-gaap:" + concept, Unit: "USD", Start: start, End: end,
			Value: shariah.NewNumber(decimal.NewFromInt(v)), Accession: acc, Form: "10-K", Filed: end[:4] + "-11-01"})
	}
	add("NetCashProvidedByUsedInOperatingActivities", "2023-01-01", "2023-12-31", 1000, "0001234567-24-000001")
	add("PaymentsToAcquirePropertyPlantAndEquipment", "2023-01-01", "2023-12-31", 300, "0001234567-24-000001")
	add("NetCashProvidedByUsedInOperatingActivities", "2024-01-01", "2024-12-31", 1500, "0001234567-25-000005")
	add("PaymentsToAcquirePropertyPlantAndEquipment", "2024-01-01", "2024-12-31", 400, "0001234567-25-000005")
	if err := e.ingest.PutFacts(ctx, "EXA", facts); err != nil {
		t.Fatal(err)
	}
	r = e.do(t, "GET", "/api/insights/EXA/cashflow", nil, k)
	m := r.json(t)
	years := m["years"].([]any)
	if m["available"] != true || len(years) != 2 || m["trend"] != "improving" {
		t.Fatalf("cash flow: %s", r.body)
	}
	last := years[1].(map[string]any)
	if dec(t, last["free_cash_flow"]).String() != "1100" || last["sources"].(map[string]any)["operating_cash_flow"].(map[string]any)["accession_number"] != "0001234567-25-000005" {
		t.Fatalf("FY2024: %v", last)
	}
	if r = e.do(t, "GET", "/api/insights/NOPE123/cashflow", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown symbol: %d", r.StatusCode)
	}
}
