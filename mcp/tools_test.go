package mcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/screening"
)

func (h *harness) call(t *testing.T, name string, args map[string]any) (*mcpgo.CallToolResult, map[string]any) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := h.c.CallTool(h.ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var m map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &m)
	}
	return res, m
}

func text(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestToolsListWithSchemasAndAnnotations(t *testing.T) {
	t.Parallel()
	h := start(t)
	list, err := h.c.ListTools(h.ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 27 {
		t.Errorf("%d tools, want the 27 tools", len(list.Tools))
	}
	have := map[string]bool{}
	for _, tl := range list.Tools {
		have[tl.Name] = true
	}
	for _, want := range []string{"screen_stock", "get_screening_result", "compare_stocks", "get_quote", "get_trending_stocks", "search_stocks",
		"islamic_finance_education", "get_disclaimers", "calculate_zakat", "bulk_screen", "manage_watchlist", "screen_sukuk", "get_news",
		"get_sec_filings", "get_compliance_insights", "get_all_screening_results", "get_stock_info", "get_dividends", "screen_etf", "get_etf_info",
		"get_price_history", "etf_purification", "compare_etfs", "scan_portfolio", "generate_report", "get_index_drift", "get_verdict_changes"} {
		if !have[want] {
			t.Errorf("no tool %s", want)
		}
	}
	for _, tl := range list.Tools {
		a := tl.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations not all set: %+v", tl.Name, a)
		}
		b, _ := json.Marshal(tl)
		var wire struct {
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		}
		json.Unmarshal(b, &wire)
		if wire.InputSchema["type"] != "object" || wire.InputSchema["properties"] == nil || wire.OutputSchema["type"] != "object" {
			t.Errorf("%s: schemas %s", tl.Name, b)
		}
		if tl.Description == "" {
			t.Errorf("%s: no description", tl.Name)
		}
	}
}

func TestToolsCallTheSameDomainCode(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "screen_stock", map[string]any{"symbol": "msft"})
	direct, _, err := h.d.Screener.Screen(h.ctx, "MSFT", screening.ScreenOptions{})
	if err != nil || res.IsError || m["compliance_status"] != direct.ComplianceStatus || m["symbol"] != "MSFT" || !strings.Contains(text(res), "not a religious ruling") {
		t.Fatalf("screen_stock: %v %v / %s", err, m, text(res))
	}
	// MSFT stands on illustrative inputs in the default pack: the text answer says so beside the verdict.
	if !direct.DataQuality.Illustrative || !strings.Contains(text(res), direct.ComplianceStatus+" (illustrative) under ") ||
		!strings.Contains(text(res), "Illustrative inputs:") {
		t.Fatalf("screen_stock text without the illustrative mark: %s", text(res))
	}
	if res, _ = h.call(t, "screen_stock", map[string]any{"symbol": "NOPE123"}); !res.IsError || !strings.Contains(text(res), "NOPE123 not found in any database.") {
		t.Fatalf("unknown symbol: %s", text(res))
	}
	if res, _ = h.call(t, "screen_stock", map[string]any{"symbol": 7}); !res.IsError || strings.Contains(text(res), "json:") {
		t.Fatalf("bad argument type: %s", text(res))
	}
	res, m = h.call(t, "calculate_zakat", map[string]any{"holdings": []any{map[string]any{"symbol": "AAPL", "market_value": 10000}}, "cash": 2000, "gold_price_per_gram": 100})
	if res.IsError || m["zakat_due"] != true || m["amount_owed"].(float64) != 300 {
		t.Fatalf("zakat: %v %s", m, text(res))
	}
	if res, _ = h.call(t, "calculate_zakat", map[string]any{"cash": -5}); !res.IsError || !strings.Contains(text(res), "cash") {
		t.Fatalf("negative cash: %s", text(res))
	}
	res, m = h.call(t, "bulk_screen", map[string]any{"action": "list_indices"})
	if res.IsError || len(m["indices"].([]any)) == 0 {
		t.Fatalf("list_indices: %s", text(res))
	}
	res, m = h.call(t, "manage_watchlist", map[string]any{"action": "create", "name": "Mine", "symbols": []any{"AAPL", "BRK.B"}})
	if res.IsError {
		t.Fatalf("create watchlist: %s", text(res))
	}
	id := m["watchlist"].(map[string]any)["id"].(string)
	res, m = h.call(t, "manage_watchlist", map[string]any{"action": "get", "watchlist_id": id})
	if syms := m["watchlist"].(map[string]any)["symbols"].([]any); res.IsError || len(syms) != 2 || syms[1] != "BRK-B" {
		t.Fatalf("get watchlist: %s", text(res))
	}
	res, m = h.call(t, "screen_sukuk", map[string]any{"isin": "XS0000000025"})
	inst := m["instruments"].([]any)[0].(map[string]any)
	if res.IsError || inst["disposition_post_62"].(map[string]any)["status"] != "questionable" {
		t.Fatalf("sukuk: %s", text(res))
	}
	res, m = h.call(t, "islamic_finance_education", map[string]any{"topic": "glossary", "query": "riba"})
	if res.IsError || len(m["content"].(map[string]any)["terms"].([]any)) == 0 {
		t.Fatalf("education: %s", text(res))
	}
	res, m = h.call(t, "get_quote", map[string]any{"symbols": []any{"AAPL", "NOPE123"}})
	q := m["quotes"].(map[string]any)
	if res.IsError || q["AAPL"] == nil || q["NOPE123"] != nil {
		t.Fatalf("quotes: %v", m)
	}
	res, m = h.call(t, "compare_stocks", map[string]any{"symbols": []any{"MSFT", "KO"}})
	if res.IsError || len(m["items"].([]any)) != 2 || !strings.Contains(strings.Split(text(res), "\n")[0], "(illustrative)") {
		t.Fatalf("compare: %s", text(res))
	}
	if res, _ = h.call(t, "compare_stocks", map[string]any{"symbols": []any{"MSFT"}}); !res.IsError {
		t.Fatal("compare with one symbol")
	}
	everyToolAnswers(t, h)
}

// everyToolAnswers calls the remaining tools with good arguments (after the calls above, which cached
// MSFT's screening): none is an error.
func everyToolAnswers(t *testing.T, h *harness) {
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"get_disclaimers", map[string]any{"id": "zakat"}},
		{"search_stocks", map[string]any{"query": "apple"}},
		{"get_trending_stocks", map[string]any{"limit": 3}},
		{"get_news", map[string]any{"symbol": "AAPL"}},
		{"get_sec_filings", map[string]any{"symbol": "AAPL"}},
		{"get_compliance_insights", map[string]any{"symbol": "MSFT", "kind": "alternatives"}},
		{"get_compliance_insights", map[string]any{"symbol": "MSFT", "kind": "peer_percentiles"}},
		{"get_screening_result", map[string]any{"symbol": "MSFT"}},
		{"get_compliance_insights", map[string]any{"symbol": "MSFT", "kind": "staleness"}},
		{"get_all_screening_results", map[string]any{"limit": 5}},
		{"get_stock_info", map[string]any{"symbol": "AAPL", "full": true}},
		{"get_dividends", map[string]any{"symbol": "AAPL", "include_purification": true}},
		{"screen_etf", map[string]any{"symbol": "SPUS"}},
		{"get_etf_info", map[string]any{"symbol": "SPUS"}},
		{"get_etf_info", map[string]any{"symbol": "SPUS", "data_type": "fund_info"}},
		{"get_price_history", map[string]any{"symbol": "AAPL", "period": "3mo", "interval": "1wk"}},
		{"etf_purification", map[string]any{"symbol": "SPUS", "investment_amount": 10000, "dividend_income": 120}},
		{"compare_etfs", map[string]any{"symbols": []any{"SPUS", "HLAL"}}},
		{"scan_portfolio", map[string]any{"symbols": []any{"MSFT", "NOPE123", "SPUS"}}},
		{"generate_report", map[string]any{"report_type": "screening", "symbol": "MSFT"}},
		{"generate_report", map[string]any{"report_type": "portfolio", "symbols": []any{"MSFT", "KO"}}},
	} {
		if res, _ := h.call(t, c.name, c.args); res.IsError {
			t.Errorf("%s %v: %s", c.name, c.args, text(res))
		}
	}
}

// TestBulkScreenRunAndFollow triggers a run through the tool, executes it as a worker does, and follows
// it to its results and summary.
func TestBulkScreenRunAndFollow(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "bulk_screen", map[string]any{"action": "trigger", "index_name": "djia"})
	if res.IsError {
		t.Fatalf("trigger: %s", text(res))
	}
	id := m["run"].(map[string]any)["run_id"].(string)
	if err := h.d.Bulk.Execute(h.ctx, id); err != nil { // the worker's part
		t.Fatal(err)
	}
	res, m = h.call(t, "bulk_screen", map[string]any{"action": "status", "run_id": id})
	run := m["run"].(map[string]any)
	if res.IsError || run["status"] != "completed" || run["processed"].(float64) != run["total"].(float64) {
		t.Fatalf("status: %s", text(res))
	}
	res, m = h.call(t, "bulk_screen", map[string]any{"action": "results", "run_id": id, "page_size": 5})
	if res.IsError || len(m["results"].([]any)) == 0 || len(m["results"].([]any)) > 5 {
		t.Fatalf("results: %s", text(res))
	}
	if res, _ = h.call(t, "bulk_screen", map[string]any{"action": "summary", "run_id": id}); res.IsError {
		t.Fatalf("summary: %s", text(res))
	}
	if res, _ = h.call(t, "bulk_screen", map[string]any{"action": "trigger", "index_name": "NOPE"}); !res.IsError {
		t.Fatal("an unknown index was triggered")
	}
}

// TestSecFilingsTool: the tool lists as REST does (one FilterFilings and ParseFilingType): the periodic
// and current reports by default, all, one form with its amendments in any case, total over every page,
// offset paging, and a refused filing_type as an error.
func TestSecFilingsTool(t *testing.T) {
	t.Parallel()
	h := start(t)
	var stored []filings.Filing
	for i, f := range []string{"4", "144", "10-Q", "4", "8-K", "3", "10-K/A", "5", "144", "20-F", "6-K", "4", "10-K"} {
		stored = append(stored, filings.Filing{Accession: fmt.Sprintf("0000320193-26-%06d", 100-i), Form: f, FilingDate: fmt.Sprintf("2026-03-%02d", 30-i)})
	}
	if err := h.d.Filings.PutFilings(h.ctx, "AAPL", stored); err != nil {
		t.Fatal(err)
	}
	forms := func(m map[string]any) string {
		var out []string
		for _, f := range m["filings"].([]any) {
			out = append(out, f.(map[string]any)["form"].(string))
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		args  map[string]any
		want  string
		total float64
	}{
		{map[string]any{}, "10-Q,8-K,10-K/A,20-F,6-K,10-K", 6},
		{map[string]any{"filing_type": "all", "limit": 4}, "4,144,10-Q,4", 13},
		{map[string]any{"filing_type": "ALL", "offset": 11}, "4,10-K", 13},
		{map[string]any{"filing_type": "10-k"}, "10-K/A,10-K", 2},
		{map[string]any{"limit": 2, "offset": 1}, "8-K,10-K/A", 6},
	} {
		c.args["symbol"] = "AAPL"
		res, m := h.call(t, "get_sec_filings", c.args)
		if res.IsError || forms(m) != c.want || m["total"] != c.total {
			t.Errorf("%v: %s (total %v), want %s (%v); %s", c.args, forms(m), m["total"], c.want, c.total, text(res))
		}
	}
	for _, args := range []map[string]any{{"filing_type": "4"}, {"filing_type": "10-K;DROP"}, {"offset": -1}} {
		args["symbol"] = "AAPL"
		if res, _ := h.call(t, "get_sec_filings", args); !res.IsError {
			t.Errorf("%v accepted: %s", args, text(res))
		}
	}
}

// TestToolsCountDataSources: with MSFT, GOOGL and GOOG (GOOGL's second class) on filed fundamentals and
// the rest of the default universe illustrative, scan_portfolio, the bulk summary and screen_etf say
// how much stands on filings, per result and per distinct company.
func TestToolsCountDataSources(t *testing.T) {
	t.Parallel()
	h := start(t)
	if err := h.ref.PutAssets(h.ctx, []shariah.Asset{{Symbol: "GOOG", Name: "Alphabet Inc. Class C", Type: shariah.Equity,
		Exchange: "NASDAQ", Country: "United States", Currency: "USD", Sector: "Communication Services", CIK: "0001652044"}}); err != nil {
		t.Fatal(err)
	}
	fact := func(v int64) shariah.Fact {
		return shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(v)), Source: shariah.SourceFiling, Ref: "0000000000-26-000001"}
	}
	by := map[string][]shariah.Fundamentals{}
	for _, sym := range []string{"MSFT", "GOOGL", "GOOG"} {
		by[sym] = []shariah.Fundamentals{{Symbol: sym, PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.TotalAssets: fact(1000), shariah.TotalDebt: fact(100), shariah.CashAndSecurities: fact(50), shariah.Receivables: fact(80),
			shariah.TotalRevenue: fact(400), shariah.InterestIncome: fact(2), shariah.ImpureRevenue: fact(0)}}}
	}
	if err := h.ref.PutFundamentals(h.ctx, by); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ref.BumpVersion(h.ctx); err != nil {
		t.Fatal(err)
	}
	counts := func(v any) [3]float64 {
		m, _ := v.(map[string]any)
		f := func(k string) float64 { n, _ := m[k].(float64); return n }
		return [3]float64{f("filed"), f("illustrative"), f("no_fundamentals")}
	}

	res, m := h.call(t, "scan_portfolio", map[string]any{"symbols": []any{"MSFT", "GOOGL", "GOOG", "KO", "ko", "NOPE123"}})
	sum, _ := m["summary"].(map[string]any)
	// "KO" and "ko" are one holding (one entry of results), so KO counts once.
	if res.IsError || counts(sum["data_sources"]) != [3]float64{3, 1, 0} || counts(sum["company_data_sources"]) != [3]float64{2, 1, 0} ||
		!strings.Contains(text(res), "3 filed, 1 illustrative, 0 without fundamentals (companies: 2 filed, 1 illustrative") {
		t.Fatalf("scan_portfolio: %v\n%s", sum, text(res))
	}

	if err := h.ref.PutIndex(h.ctx, catalog.IndexInfo{Name: "SRC4", Description: "test", Country: "Test", Symbols: []string{"MSFT", "GOOGL", "GOOG", "KO"}, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	res, m = h.call(t, "bulk_screen", map[string]any{"action": "trigger", "index_name": "SRC4"})
	if res.IsError {
		t.Fatalf("trigger: %s", text(res))
	}
	id := m["run"].(map[string]any)["run_id"].(string)
	if err := h.d.Bulk.Execute(h.ctx, id); err != nil {
		t.Fatal(err)
	}
	res, m = h.call(t, "bulk_screen", map[string]any{"action": "summary", "run_id": id})
	sum, _ = m["summary"].(map[string]any)
	if res.IsError || counts(sum["data_sources"]) != [3]float64{3, 1, 0} || counts(sum["company_data_sources"]) != [3]float64{2, 1, 0} {
		t.Fatalf("bulk summary: %v\n%s", sum, text(res))
	}

	// SPUS holds MSFT (11.80%) and GOOGL (6.40%) among seven illustrative holdings and one unresolved line.
	res, m = h.call(t, "screen_etf", map[string]any{"symbol": "SPUS", "force_refresh": true})
	w, _ := m["data_source_weights"].(map[string]any)
	if res.IsError || counts(m["data_sources"]) != [3]float64{2, 7, 1} || w["filed_pct"] != "18.20" {
		t.Fatalf("screen_etf: %v %v\n%s", m["data_sources"], w, text(res))
	}
}
