package edge_test

import (
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

// Issue 27's contract tests: what the public clients (the SDKs, the research agent, the Discord bot,
// the portfolio tracker) read, by field name and JSON type.

// TestPortfolioNotFoundMessage: a symbol the service does not know is NOT_FOUND in a portfolio scan
// with error_message in the words of the single-symbol 404 (the tracker shows it instead of
// "Pending"); an unscreenable one carries its reason; a screened one has none. The portfolio report's
// holdings are the same items.
func TestPortfolioNotFoundMessage(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, shariah.PlanPro))
	single := e.do(t, "POST", "/api/screen/NOPE", nil, k)
	if single.StatusCode != 404 {
		t.Fatalf("single-symbol NOPE: %d %s", single.StatusCode, single.body)
	}
	want404 := single.json(t)["message"].(string)
	syms := []string{"nope", "SPUS", "MSFT"}
	scan := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": syms}, k).json(t)
	res := scan["results"].(map[string]any)
	nope := res["NOPE"].(map[string]any)
	if field(t, "NOPE", nope, "status", "string") != "NOT_FOUND" || field(t, "NOPE", nope, "is_compliant", "null") != nil {
		t.Fatalf("NOPE: %v", nope)
	}
	if msg := field(t, "NOPE", nope, "error_message", "string"); msg != want404 || msg != "Symbol NOPE not found in any database." {
		t.Errorf("NOPE error_message %q, the 404 says %q", msg, want404)
	}
	spus := res["SPUS"].(map[string]any)
	if msg, _ := field(t, "SPUS", spus, "error_message", "string").(string); spus["status"] != "NOT_SCREENABLE" || msg == "" {
		t.Errorf("SPUS: status %v error_message %q", spus["status"], msg)
	}
	if _, ok := res["MSFT"].(map[string]any)["error_message"]; ok {
		t.Errorf("MSFT, screened, has error_message: %v", res["MSFT"].(map[string]any)["error_message"])
	}
	rep := e.do(t, "POST", "/api/reports/portfolio", map[string]any{"symbols": syms}, k).json(t)
	for _, h := range rep["holdings"].([]any) {
		h := h.(map[string]any)
		if h["status"] == "NOT_FOUND" && h["error_message"] != want404 {
			t.Errorf("report holding %v: error_message %v", h["symbol"], h["error_message"])
		}
	}
}
