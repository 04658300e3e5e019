package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	shariah "github.com/shariah-screen/shariah"
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
	h := start(t)
	list, err := h.c.ListTools(h.ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 25 {
		t.Errorf("%d tools, want the 25 of mcp.md", len(list.Tools))
	}
	have := map[string]bool{}
	for _, tl := range list.Tools {
		have[tl.Name] = true
	}
	for _, want := range []string{"screen_stock", "get_screening_result", "compare_stocks", "get_quote", "get_trending_stocks", "search_stocks",
		"islamic_finance_education", "get_disclaimers", "calculate_zakat", "bulk_screen", "manage_watchlist", "screen_sukuk", "get_news",
		"get_sec_filings", "get_compliance_insights", "get_all_screening_results", "get_stock_info", "get_dividends", "screen_etf", "get_etf_info",
		"get_price_history", "etf_purification", "compare_etfs", "scan_portfolio", "generate_report"} {
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
	h := start(t)
	res, m := h.call(t, "screen_stock", map[string]any{"symbol": "msft"})
	direct, _, err := h.d.Screener.Screen(h.ctx, "MSFT", shariah.ScreenOptions{})
	if err != nil || res.IsError || m["compliance_status"] != direct.ComplianceStatus || m["symbol"] != "MSFT" || !strings.Contains(text(res), "not a religious ruling") {
		t.Fatalf("screen_stock: %v %v / %s", err, m, text(res))
	}
	if res, _ = h.call(t, "screen_stock", map[string]any{"symbol": "NOPE123"}); !res.IsError || !strings.Contains(text(res), "not in the database") {
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
	if res.IsError || len(m["items"].([]any)) != 2 {
		t.Fatalf("compare: %s", text(res))
	}
	if res, _ = h.call(t, "compare_stocks", map[string]any{"symbols": []any{"MSFT"}}); !res.IsError {
		t.Fatal("compare with one symbol")
	}
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
