package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestToolsRefuseOutOfBoundInputs: the MCP tools decode their own arguments, then reach the same domain
// checks as REST (Validation.Amount, Quantity and Name): 1e9999, NaN, Infinity, negative amounts,
// amounts above the ceiling, too many holdings and names with control or bidi characters are tool
// errors naming the field, and nothing is computed or stored.
func TestToolsRefuseOutOfBoundInputs(t *testing.T) {
	t.Parallel()
	h := start(t)
	holdings := func(n int, h map[string]any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = h
		}
		return out
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // in the error text
	}{
		{"calculate_zakat", map[string]any{"cash": "1e9999"}, "body.cash: must be at most 1000000000000000"},
		{"calculate_zakat", map[string]any{"cash": "NaN"}, "arguments.cash: wrong type"},
		{"calculate_zakat", map[string]any{"cash": "Infinity"}, "arguments.cash: wrong type"},
		{"calculate_zakat", map[string]any{"debts": 1e16}, "body.debts: must be at most 1000000000000000"},
		{"calculate_zakat", map[string]any{"debts": "1000000000000000.01"}, "body.debts: must be at most 1000000000000000"},
		{"calculate_zakat", map[string]any{"holdings": []any{map[string]any{"symbol": "AAPL", "market_value": "1e9999"}}},
			"body.holdings.0.market_value: must be at most"},
		{"calculate_zakat", map[string]any{"holdings": []any{map[string]any{"symbol": "AAPL", "shares": "1e-9999"}}},
			"body.holdings.0.shares: at most 18 decimal places"},
		{"calculate_zakat", map[string]any{"holdings": []any{map[string]any{"symbol": "AAPL", "shares": -1}}}, "body.holdings.0.shares: must be zero or more"},
		{"calculate_zakat", map[string]any{"holdings": holdings(101, map[string]any{"symbol": "AAPL", "market_value": 1})}, "body.holdings: at most 100 holdings"},
		{"calculate_zakat", map[string]any{"calculation_type": "purification", "holdings": []any{map[string]any{"symbol": "AAPL", "dividend_income": "1e9999"}}},
			"body.holdings.0.dividend_income: must be at most"},
		{"etf_purification", map[string]any{"symbol": "SPUS", "investment_amount": "1e9999"}, "arguments.investment_amount: must be at most"},
		{"etf_purification", map[string]any{"symbol": "SPUS", "investment_amount": "NaN"}, "wrong type"},
		{"etf_purification", map[string]any{"symbol": "SPUS", "investment_amount": 10, "dividend_income": -1}, "arguments.dividend_income: must be zero or more"},
		{"manage_watchlist", map[string]any{"action": "create", "name": "a\x00b"}, "body.name: must not contain a control character"},
		{"manage_watchlist", map[string]any{"action": "create", "name": "\u202egnp.exe"}, "body.name: must not contain a bidirectional formatting character"},
		{"manage_watchlist", map[string]any{"action": "create", "name": "red\x1b[31m"}, "body.name: must not contain a control character"},
	} {
		res, _ := h.call(t, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), "VALIDATION_ERROR") || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: want a validation error with %q, got %s", c.tool, c.args, c.want, text(res))
		}
	}
	// An unquoted 1e9999 does not even reach the tool: the protocol layer reads arguments as float64
	// and refuses the call.
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "calculate_zakat", map[string]any{"cash": json.Number("1e9999")}
	if res, err := h.c.CallTool(h.ctx, req); err == nil && !res.IsError {
		t.Errorf("unquoted 1e9999 was computed: %s", text(res))
	}
	res, m := h.call(t, "manage_watchlist", map[string]any{"action": "list"})
	if res.IsError || len(m["watchlists"].([]any)) != 0 {
		t.Errorf("a refused watchlist was stored: %s", text(res))
	}
	// At the ceiling is accepted.
	res, m = h.call(t, "calculate_zakat", map[string]any{"cash": 1e15, "gold_price_per_gram": 100})
	if res.IsError || m["zakat_due"] != true {
		t.Errorf("cash at the ceiling: %s", text(res))
	}
}
