package mcp_test

import (
	"strings"
	"testing"
)

// get_stock_info names the period each screening input comes from, the same as the screening it
// returns with full (ScreeningPeriods; as /api/filings/{symbol}/provenance).
func TestStockInfoNamesTheScreeningsPeriods(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "get_stock_info", map[string]any{"symbol": "AAPL", "full": true})
	if res.IsError {
		t.Fatalf("get_stock_info: %s", text(res))
	}
	dq := m["screening"].(map[string]any)["data_quality"].(map[string]any)
	label, _ := dq["period_label"].(string)
	if label == "" || m["period_label"] != label || !strings.Contains(text(res), "A screening stands on "+label) {
		t.Fatalf("period %v, screening's %q: %s", m["period_label"], label, text(res))
	}
	periods := dq["input_periods"].(map[string]any)
	inputs := m["inputs"].(map[string]any)
	if len(inputs) == 0 {
		t.Fatal("no inputs")
	}
	for f, in := range inputs {
		if got := in.(map[string]any)["period_label"]; got != periods[f] {
			t.Errorf("%s: get_stock_info %v, screening %v", f, got, periods[f])
		}
	}
}
