package edge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/insights"
)

// seedDrift makes an index DRIFT of six default-pack companies over real ClickHouse and Redis: MSFT's
// debt climbs toward FTSE's 33.33% line, KO's crosses it, TSLA's falls (filed quarters, all three);
// NVDA has only illustrative quarters (and illustrative fundamentals), AAPL nothing but illustrative
// fundamentals, JPM filed fundamentals and no quarter.
func seedDrift(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	quarters := func(source string, debtPct ...float64) []insights.TrajectoryPoint {
		var pts []insights.TrajectoryPoint
		for i, v := range debtPct {
			f, c := v/100, 0.1
			pts = append(pts, insights.TrajectoryPoint{PeriodEnd: fmt.Sprintf("2025-%02d-30", 3*i+3), Period: fmt.Sprintf("Q%d", i+1), FiscalYear: 2025,
				DebtAssets: &f, CashAssets: &c, Source: source, Accession: fmt.Sprintf("0000000000-25-%06d", i)})
		}
		return pts
	}
	if err := e.traj.PutTrajectories(ctx, map[string][]insights.TrajectoryPoint{
		"MSFT": quarters(shariah.SourceFiling, 25, 28, 30, 32),
		"KO":   quarters(shariah.SourceFiling, 30, 31, 32, 34),
		"TSLA": quarters(shariah.SourceFiling, 35, 30, 28, 25),
		"NVDA": quarters(shariah.SourceIllustrative, 20, 30, 40, 50),
	}); err != nil {
		t.Fatal(err)
	}
	filed := shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(1000)), Source: shariah.SourceFiling, Ref: "0000019617-25-000001"}
	if err := e.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"JPM": {{Symbol: "JPM", PeriodEnd: "2025-09-30", Period: "Q3",
		FiscalYear: 2025, Currency: "USD", Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: filed}}}}); err != nil {
		t.Fatal(err)
	}
	putIndex(t, e, "DRIFT", "MSFT", "KO", "TSLA", "NVDA", "AAPL", "JPM")
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)
}

func TestDriftOverAnIndex(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	seedDrift(t, e)
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "GET", "/api/insights/drift?index=drift&ruleset=ftse-2024&methodology=FTSE&quarters=4", nil, k)
	if r.StatusCode != 200 || r.Header.Get("X-Tokens-Charged") != "5" {
		t.Fatalf("drift: %d (%s tokens) %s", r.StatusCode, r.Header.Get("X-Tokens-Charged"), r.body)
	}
	m := r.json(t)
	if m["index"] != "DRIFT" || m["watchlist_id"] != nil || m["ruleset"] != "ftse-2024" || m["methodology"] != "ftse" || m["quarters"] != 4.0 || m["considered"] != 3.0 {
		t.Fatalf("head: %v", m)
	}
	lo := m["left_out"].(map[string]any)
	if lo["illustrative"] != 2.0 || lo["no_filed_quarters"] != 1.0 || strings.Join(toStrings(lo["symbols"]), ",") != "AAPL,JPM,NVDA" {
		t.Fatalf("left out: %v", lo)
	}
	cs := m["companies"].([]any)
	if len(cs) != 2 {
		t.Fatalf("companies: %v", cs)
	}
	ko, msft := cs[0].(map[string]any), cs[1].(map[string]any)
	if ko["symbol"] != "KO" || ko["direction"] != "across" || ko["distance_points"] != -0.67 || ko["latest_bp"] != 3400.0 || ko["first_bp"] != 3000.0 ||
		ko["quarters_of_drift"] != 3.0 || ko["threshold_bp"] != "3333.3" || ko["rule"] != "debt" || ko["methodology_name"] != "FTSE" ||
		ko["name"] != "The Coca-Cola Company" || ko["sector"] != "Consumer Staples" || ko["latest_period_end"] != "2025-12-30" || ko["partial"] != false {
		t.Fatalf("KO: %v", ko)
	}
	if msft["symbol"] != "MSFT" || msft["direction"] != "toward" || msft["distance_points"] != 1.33 || msft["ratio"] != "debt_to_assets" ||
		len(msft["series"].([]any)) != 4 {
		t.Fatalf("MSFT: %v", msft)
	}
	// Every methodology of spec: one row per company and ratio, against its nearest line (MSFT's 32% is
	// 2 points over AAOIFI's 30%, 1.33 under MSCI's 33.33% and 1 under spec's FTSE 33%).
	all := e.do(t, "GET", "/api/insights/drift?index=DRIFT", nil, k).json(t)
	if all["methodology"] != nil || all["ruleset"] != "spec" || all["quarters"] != 8.0 {
		t.Fatalf("defaults: %v", all)
	}
	seen := map[string]int{}
	for _, c := range all["companies"].([]any) {
		c := c.(map[string]any)
		seen[c["symbol"].(string)+" "+c["ratio"].(string)]++
		if c["symbol"] == "MSFT" && (c["direction"] != "toward" || c["distance_points"] != 1.0 || c["methodology"] != "ftse") {
			t.Errorf("MSFT nearest line: %v", c)
		}
	}
	if seen["MSFT debt_to_assets"] != 1 || seen["KO debt_to_assets"] != 1 || len(seen) != 2 {
		t.Fatalf("rows: %v", seen)
	}

	med := e.do(t, "GET", "/api/insights/sector-medians?index=DRIFT&quarters=4", nil, k)
	if med.StatusCode != 200 {
		t.Fatalf("medians: %d %s", med.StatusCode, med.body)
	}
	mm := med.json(t)
	sectors := mm["sectors"].([]any)
	if len(sectors) != 3 || mm["considered"] != 3.0 || mm["left_out"].(map[string]any)["illustrative"] != 2.0 {
		t.Fatalf("medians: %v", mm)
	}
	tech := sectors[2].(map[string]any)
	qs := tech["quarters"].([]any)
	last := qs[3].(map[string]any)
	if tech["sector"] != "Information Technology" || len(qs) != 4 || last["quarter"] != "2025-Q4" || last["companies"] != 1.0 ||
		last["debt_to_assets"] != 0.32 || last["liquidity_to_assets"] != nil {
		t.Fatalf("tech medians: %v", tech)
	}
}

func TestDriftOverAWatchlistIsTheOwnersOnly(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	seedDrift(t, e)
	owner, other := key(e.newKey(t, account.PlanPro)), key(e.newKey(t, account.PlanPro))
	wl := e.do(t, "POST", "/api/watchlists", map[string]any{"name": "drifters", "symbols": []string{"KO", "TSLA", "AAPL"}}, owner).json(t)["id"].(string)
	r := e.do(t, "GET", "/api/insights/drift?watchlist_id="+wl+"&methodology=ftse", nil, owner)
	m := r.json(t)
	if r.StatusCode != 200 || m["watchlist_id"] != wl || m["index"] != nil || m["considered"] != 2.0 || len(m["companies"].([]any)) != 1 ||
		m["left_out"].(map[string]any)["illustrative"] != 1.0 {
		t.Fatalf("owner: %d %s", r.StatusCode, r.body)
	}
	if r := e.do(t, "GET", "/api/insights/sector-medians?watchlist_id="+wl, nil, owner); r.StatusCode != 200 || r.json(t)["watchlist_id"] != wl {
		t.Fatalf("owner medians: %d %s", r.StatusCode, r.body)
	}
	// Another account's watchlist does not exist for the caller, as with GET /api/watchlists/{id}.
	for _, path := range []string{"/api/insights/drift?watchlist_id=" + wl, "/api/insights/sector-medians?watchlist_id=" + wl,
		"/api/insights/drift?watchlist_id=not-an-id"} {
		if r := e.do(t, "GET", path, nil, other); r.StatusCode != 404 || r.errCode(t) != shariah.ENOTFOUND {
			t.Fatalf("%s for another account: %d %s", path, r.StatusCode, r.body)
		}
	}
	if r := e.do(t, "GET", "/api/watchlists/"+wl, nil, other); r.StatusCode != 404 {
		t.Fatalf("the watchlist route: %d", r.StatusCode)
	}
}

func TestDriftRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	cases := []struct{ query, field, msg string }{
		{"", "index", "give one of index and watchlist_id"},
		{"index=SP500&watchlist_id=0190a0a0-0000-7000-8000-000000000000", "watchlist_id", "not both"},
		{"index=SP500&quarters=1", "quarters", "between 2 and 8"},
		{"index=SP500&quarters=9", "quarters", "between 2 and 8"},
		{"index=SP500&quarters=abc", "quarters", "integer"},
		{"index=NOPE", "index", "valid: SP500, DJIA"},
		{"index=SP500&ruleset=nope", "ruleset", "valid:"},
		{"index=SP500&methodology=nope", "methodology", "valid:"},
	}
	for _, route := range []string{"/api/insights/drift", "/api/insights/sector-medians"} {
		for _, c := range cases {
			if route == "/api/insights/sector-medians" && (c.field == "ruleset" || c.field == "methodology") {
				continue // medians take no ruleset
			}
			r := e.do(t, "GET", route+"?"+c.query, nil, k)
			if r.StatusCode != 422 || r.errCode(t) != "VALIDATION_ERROR" || !strings.Contains(string(r.body), `"`+c.field+`"`) || !strings.Contains(string(r.body), c.msg) {
				t.Errorf("%s?%s: %d %s", route, c.query, r.StatusCode, r.body)
			}
		}
	}
	// A known index with nothing filed: every constituent left out, none drifting.
	m := e.do(t, "GET", "/api/insights/drift?index=sp%20500", nil, k).json(t)
	lo := m["left_out"].(map[string]any)
	if m["index"] != "SP500" || m["considered"] != 0.0 || len(m["companies"].([]any)) != 0 || lo["illustrative"].(float64)+lo["no_filed_quarters"].(float64) == 0 {
		t.Fatalf("nothing filed: %v", m)
	}
}
