package edge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/internal/mcptest"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/mcp"
)

// TestUnknownSymbolMessage: an unknown symbol on the screening routes is the 404 envelope whose
// message reads "Symbol X not found in any database." — the phrase the existing clients match on.
func TestUnknownSymbolMessage(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/screen/NOPE", nil},
		{"GET", "/api/screen/nope", nil},
		{"GET", "/api/result/NOPE", nil},
		{"GET", "/api/reports/screening/NOPE", nil},
		{"POST", "/api/etf/NOPE/screen", nil},
		{"POST", "/api/compare", map[string]any{"symbols": []string{"MSFT", "NOPE"}}},
	} {
		r := e.do(t, c.method, c.path, c.body, k)
		if r.StatusCode != 404 {
			t.Errorf("%s %s: %d %s", c.method, c.path, r.StatusCode, r.body)
			continue
		}
		m := r.json(t)
		if msg, ok := m["message"].(string); !ok || msg != "Symbol NOPE not found in any database." || m["code"] == nil {
			t.Errorf("%s %s: envelope %v", c.method, c.path, m)
		}
	}
}

// TestIndicesAndTrendingFields reads the indices listing and trending as the clients do: each index
// has name = index_name; each trending item a numeric change_percent and a signed change string
// matching it; limit defaults to 10 and is validated.
func TestIndicesAndTrendingFields(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	ix := e.do(t, "GET", "/api/screen-bulk/indices", nil, k).json(t)["indices"].([]any)
	if len(ix) == 0 {
		t.Fatal("no indices")
	}
	for _, it := range ix {
		m := it.(map[string]any)
		if n, ok := m["name"].(string); !ok || n == "" || n != m["index_name"] {
			t.Errorf("index %v: name %v", m["index_name"], m["name"])
		}
	}
	r := e.do(t, "GET", "/api/trending", nil, k)
	var items []any
	if err := json.Unmarshal(r.body, &items); err != nil || r.StatusCode != 200 || len(items) == 0 || len(items) > 10 {
		t.Fatalf("trending: %d %s", r.StatusCode, r.body)
	}
	for _, it := range items {
		m := it.(map[string]any)
		pct, ok := m["change_percent"].(float64)
		ch, ok2 := m["change"].(string)
		if !ok || !ok2 {
			t.Fatalf("trending item types %v", m)
		}
		want := fmt.Sprintf("%.2f%%", pct)
		if pct > 0 {
			want = "+" + want
		}
		if ch != want {
			t.Errorf("%v: change %q, change_percent %v", m["symbol"], ch, pct)
		}
	}
	if r := e.do(t, "GET", "/api/trending?limit=3", nil, k); r.StatusCode != 200 || strings.Count(string(r.body), `"symbol"`) != min(3, len(items)) {
		t.Errorf("limit=3: %d %s", r.StatusCode, r.body)
	}
	for _, bad := range []string{"0", "51", "abc"} {
		if r := e.do(t, "GET", "/api/trending?limit="+bad, nil, k); r.StatusCode != 422 {
			t.Errorf("limit=%s: %d", bad, r.StatusCode)
		}
	}
}

// TestZakatEcosystemFields: a 43,000 USD portfolio (holdings given by market value and by shares)
// owes 1,075 (2.5%), read under the names the SDKs use; each holding's share is its part of it.
func TestZakatEcosystemFields(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "POST", "/api/zakat/calculate", map[string]any{"holdings": []map[string]any{
		{"symbol": "AAPL", "market_value": 30000}, {"symbol": "MSFT", "market_value": 10000}}, "cash": 3000}, k)
	if r.StatusCode != 200 {
		t.Fatalf("zakat: %d %s", r.StatusCode, r.body)
	}
	m := r.json(t)
	if m["total_zakat"] != 1075.0 || m["amount_owed"] != 1075.0 || m["is_above_nisab"] != true || m["total_market_value"] != 43000.0 {
		t.Fatalf("zakat fields: %v", m)
	}
	if th, ok := m["nisab_threshold"].(float64); !ok || th != m["nisab"].(map[string]any)["threshold"] {
		t.Fatalf("nisab_threshold %v", m["nisab_threshold"])
	}
	shares := map[string]float64{}
	for _, h := range m["holdings"].([]any) {
		h := h.(map[string]any)
		shares[h["symbol"].(string)], _ = h["zakat_amount"].(float64)
	}
	// 1,075 x 30,000 / 43,000 and 1,075 x 10,000 / 43,000; the cash carries the rest (75).
	if shares["AAPL"] != 750.0 || shares["MSFT"] != 250.0 {
		t.Fatalf("holding shares %v", shares)
	}
	// Below the nisab: nothing owed, shares zero.
	m = e.do(t, "POST", "/api/zakat/calculate", map[string]any{"holdings": []map[string]any{{"symbol": "AAPL", "market_value": 10}}}, k).json(t)
	if m["is_above_nisab"] != false || m["total_zakat"] != 0.0 || m["holdings"].([]any)[0].(map[string]any)["zakat_amount"] != 0.0 {
		t.Fatalf("below nisab: %v", m)
	}
	// A bad market_value, of either kind, is a 422 whose field detail names the holding by its index.
	for _, c := range []struct {
		bad  any
		kind string
	}{{-5, "value_error"}, {"lots", "type_error"}, {[]int{1}, "type_error"}, {1e16, "value_error"}} {
		r := e.do(t, "POST", "/api/zakat/calculate", map[string]any{"holdings": []map[string]any{
			{"symbol": "MSFT", "market_value": 10000}, {"symbol": "AAPL", "market_value": c.bad}}}, k)
		if r.StatusCode != 422 {
			t.Errorf("market_value %v: %d %s", c.bad, r.StatusCode, r.body)
			continue
		}
		m := r.json(t)
		errs, _ := m["detail"].(map[string]any)["errors"].([]any)
		if m["code"] != "VALIDATION_ERROR" || len(errs) != 1 {
			t.Errorf("market_value %v: envelope %v", c.bad, m)
			continue
		}
		fe := errs[0].(map[string]any)
		if loc := fmt.Sprint(fe["loc"]); loc != "[body holdings 1 market_value]" || !strings.HasPrefix(fe["type"].(string), c.kind) {
			t.Errorf("market_value %v: loc %s type %v", c.bad, loc, fe["type"])
		}
	}
}

// TestQuoteEcosystemFields reads a quote as the SDKs do: change_percent a number, changePercent and
// marketCap beside change_percent and market_cap, the market_data disclaimer; the ETag still gives 304.
func TestQuoteEcosystemFields(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "GET", "/api/quote/MSFT", nil, k)
	m := r.json(t)
	pct, ok1 := m["change_percent"].(float64)
	cap, ok2 := m["market_cap"].(float64)
	if r.StatusCode != 200 || !ok1 || !ok2 || m["changePercent"] != pct || m["marketCap"] != cap {
		t.Fatalf("quote fields: %d %v", r.StatusCode, m)
	}
	ds, _ := m["disclaimers"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["id"] != "market_data" {
		t.Fatalf("disclaimers %v", m["disclaimers"])
	}
	etag := r.Header.Get("ETag")
	if r2 := e.do(t, "GET", "/api/quote/MSFT", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": etag}); etag == "" || r2.StatusCode != 304 {
		t.Fatalf("conditional quote: %q %d", etag, r2.StatusCode)
	}
	b := e.do(t, "POST", "/api/quotes/batch", map[string]any{"symbols": []string{"MSFT"}}, k).json(t)
	q := b["MSFT"].(map[string]any)
	if q["change_percent"] != pct || q["changePercent"] != pct || q["marketCap"] != cap {
		t.Fatalf("batch quote %v", q)
	}
	// The batch quotes carry the same market_data disclaimer as the single quote.
	if bd, _ := q["disclaimers"].([]any); len(bd) != 1 || string(mustJSON(bd[0])) != string(mustJSON(ds[0])) {
		t.Fatalf("batch quote disclaimers %v, single quote %v", q["disclaimers"], ds)
	}
	// The MCP get_quote tool too: on each quote and beside the quotes.
	mc := mcpClient(t, e)
	qm := callTool(t, mc, "get_quote", map[string]any{"symbols": []string{"MSFT", "NOPE"}})
	quotes := qm["quotes"].(map[string]any)
	mq, _ := quotes["MSFT"].(map[string]any)
	if mq == nil || quotes["NOPE"] != nil || mq["changePercent"] != pct {
		t.Fatalf("mcp get_quote %v", qm)
	}
	md, _ := mq["disclaimers"].([]any)
	td, _ := qm["disclaimers"].([]any)
	if len(md) != 1 || len(td) != 1 || string(mustJSON(md[0])) != string(mustJSON(ds[0])) || string(mustJSON(td[0])) != string(mustJSON(ds[0])) {
		t.Fatalf("mcp get_quote disclaimers: quote %v, result %v", md, td)
	}
}

// mcpClient is an in-process MCP client on the environment's stores.
func mcpClient(t *testing.T, e *env) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(mcp.New(app.MCPDeps(e.appEnv, e.svc)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mcptest.Connect(t, c)
	return c
}

// callTool calls an MCP tool and returns its structured content as a client decodes it.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// TestTrendingChangeOfOldItems: trending items stored before the signed change string, the currency and
// the asset kind existed get them on REST and over MCP alike (one implementation, market.TrendingList):
// the asset records leave out an index and an ETF, and give each equity its currency; the bot's and the
// agent's fields by name and JSON type.
func TestTrendingChangeOfOldItems(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	ctx := context.Background()
	old := []market.Trending{
		{Symbol: "^DJI", Name: "Dow Jones Industrial Average", ChangePercent: shariah.NewNumber(decimal.RequireFromString("2")), AsOf: "2026-01-02", Source: "history"},
		{Symbol: "MSFT", Name: "Microsoft", ChangePercent: shariah.NewNumber(decimal.RequireFromString("1.234")), AsOf: "2026-01-02", Source: "history"},
		{Symbol: "SPUS", Name: "SP Funds S&P 500 Sharia ETF", ChangePercent: shariah.NewNumber(decimal.RequireFromString("1.1")), AsOf: "2026-01-02", Source: "history"},
		{Symbol: "KO", Name: "Coca-Cola", ChangePercent: shariah.NewNumber(decimal.RequireFromString("-0.5")), AsOf: "2026-01-02", Source: "history"},
		{Symbol: "JPM", Name: "JPMorgan", ChangePercent: shariah.NewNumber(decimal.Zero), AsOf: "2026-01-02", Source: "illustrative"},
	}
	if err := e.ref.PutTrending(ctx, old); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"MSFT": "+1.23%", "KO": "-0.50%", "JPM": "0.00%"}
	check := func(where string, items []any) {
		t.Helper()
		if len(items) != 3 {
			t.Fatalf("%s: %v", where, items)
		}
		for _, it := range items {
			m := it.(map[string]any)
			sym, _ := m["symbol"].(string)
			if ch, _ := m["change"].(string); ch != want[sym] {
				t.Errorf("%s %v: change %q, want %q", where, sym, ch, want[sym])
			}
			if cur, ok := m["currency"].(string); !ok || cur != "USD" {
				t.Errorf("%s %s: currency %v", where, sym, m["currency"])
			}
			if il, ok := m["illustrative"].(bool); !ok || il != (sym == "JPM") {
				t.Errorf("%s %s: illustrative %v", where, sym, m["illustrative"])
			}
			if _, ok := m["price"].(float64); !ok || m["asset_type"] != "equity" {
				t.Errorf("%s %s: price %v asset_type %v", where, sym, m["price"], m["asset_type"])
			}
		}
	}
	var rest []any
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := e.do(t, "GET", "/api/trending", nil, k)
		if err := json.Unmarshal(r.body, &rest); err != nil || r.StatusCode != 200 {
			t.Fatalf("trending: %d %s", r.StatusCode, r.body)
		}
		if len(rest) == 3 || time.Now().After(deadline) { // the server's store may cache the list briefly
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	check("REST", rest)
	check("MCP", callTool(t, mcpClient(t, e), "get_trending_stocks", map[string]any{"limit": 16})["trending"].([]any))
}

// TestPortfolioScanEcosystemShape reads a scan as the bot and the tracker do: results keyed by the
// symbol as written, each the full screening result plus status; the summary's non_compliant counts
// every is_compliant false, pending every null, avg_purification_rate the mean percent; disclaimers.
func TestPortfolioScanEcosystemShape(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	syms := []string{"msft", "JPM", "KO", "NOPE", "SPUS", "NVDA"}
	m := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": syms}, k).json(t)
	res := m["results"].(map[string]any)
	if len(res) != len(syms) {
		t.Fatalf("results %v", res)
	}
	var compliant, non, pending, rated float64
	var rateSum float64
	for _, s := range syms {
		it, ok := res[strings.ToUpper(s)].(map[string]any)
		if !ok {
			t.Fatalf("no entry for %s", s)
		}
		switch it["is_compliant"] {
		case true:
			compliant++
		case false:
			non++
		default:
			pending++
		}
		if it["status"] == "NOT_FOUND" || it["status"] == "NOT_SCREENABLE" {
			if it["shariah_compliance_status"] != nil || it["is_compliant"] != nil {
				t.Errorf("%s: %v", s, it)
			}
			continue
		}
		// The full result: the screening fields the SDKs read, beside the scan's status, which is
		// COMPLIANT exactly when is_compliant is true (the tracker reads the word), else compliance_status.
		wantStatus := it["compliance_status"]
		if it["is_compliant"] == true {
			wantStatus = "COMPLIANT"
		}
		if _, ok := it["shariah_compliance_status"].(string); !ok || it["by_methodology"] == nil || it["status"] != wantStatus {
			t.Errorf("%s entry is not a full result: %v", s, it)
		}
		if vm, _ := it["verdict_methodology"].(string); vm == "" || it["aaoifi_compliant"] != it["is_compliant"] {
			t.Errorf("%s: is_compliant %v follows %q, aaoifi_compliant %v", s, it["is_compliant"], vm, it["aaoifi_compliant"])
		}
		if p, ok := it["purification_rate"].(float64); ok {
			rateSum += p
			rated++
		}
	}
	sum := m["summary"].(map[string]any)
	if sum["compliant"] != compliant || sum["non_compliant"] != non || sum["pending"] != pending || compliant+non+pending != 6 ||
		sum["not_found"] != 1.0 || sum["avg_purification_rate_count"] != rated {
		t.Fatalf("summary %v (compliant %v non %v pending %v rated %v)", sum, compliant, non, pending, rated)
	}
	if avg, ok := sum["avg_purification_rate"].(float64); rated > 0 && (!ok || fmt.Sprintf("%.4f", avg) != fmt.Sprintf("%.4f", rateSum/rated)) {
		t.Fatalf("avg_purification_rate %v, want %.4f", sum["avg_purification_rate"], rateSum/rated)
	}
	if ds, _ := m["disclaimers"].([]any); len(ds) == 0 {
		t.Fatal("no disclaimers")
	}
	// The portfolio report has the same summary.
	rep := e.do(t, "POST", "/api/reports/portfolio", map[string]any{"symbols": syms}, k).json(t)
	rs := rep["summary"].(map[string]any)
	for _, f := range []string{"total", "compliant", "non_compliant", "pending", "not_found", "avg_purification_rate", "avg_purification_rate_count"} {
		if rs[f] != sum[f] {
			t.Errorf("report summary %s = %v, scan %v", f, rs[f], sum[f])
		}
	}
}

// TestPortfolioScanDuplicateSymbol: a symbol given twice in different case ("KO", "ko") is one entry of
// the keyed results, one holding of the report, and counts once in both summaries.
func TestPortfolioScanDuplicateSymbol(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	syms := []string{"KO", "ko", " Ko ", "MSFT", "NOPE", "nope"}
	m := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": syms}, k).json(t)
	res := m["results"].(map[string]any)
	if len(res) != 3 || res["KO"] == nil || res["MSFT"] == nil || res["NOPE"] == nil {
		t.Fatalf("results keys: %v", res)
	}
	sum := m["summary"].(map[string]any)
	if sum["total"] != 3.0 || sum["not_found"] != 1.0 || sum["compliant"].(float64)+sum["non_compliant"].(float64)+sum["pending"].(float64) != 3 {
		t.Fatalf("summary counts a duplicate twice: %v", sum)
	}
	if ko := res["KO"].(map[string]any); ko["input"] != "KO" || ko["symbol"] != "KO" {
		t.Errorf("KO entry: input %v symbol %v", ko["input"], ko["symbol"])
	}
	rep := e.do(t, "POST", "/api/reports/portfolio", map[string]any{"symbols": syms}, k).json(t)
	if h := rep["holdings"].([]any); len(h) != 3 {
		t.Fatalf("report holdings %d: %v", len(h), h)
	}
	if rs := rep["summary"].(map[string]any); rs["total"] != 3.0 || rs["not_found"] != 1.0 || rs["pending"] != sum["pending"] {
		t.Fatalf("report summary %v", rs)
	}
}
