package edge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah/account"
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
	k := key(e.newKey(t, account.PlanPro))
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

// TestWatchlistCountAndSummaryNumbers: a watchlist carries count, the number of its symbols (the
// agent's completion shows "3 symbols"), on create, get, list and after a change; a portfolio scan's
// compliance_rate_pct is a number like its siblings (percent of the symbols with a verdict); a passed
// business screen says why in business_screen_reason.
func TestWatchlistCountAndSummaryNumbers(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	created := e.do(t, "POST", "/api/watchlists", map[string]any{"name": "Halal Tech", "symbols": []string{"MSFT", "NVDA", "AAPL"}}, k)
	if created.StatusCode != 200 {
		t.Fatalf("create: %d %s", created.StatusCode, created.body)
	}
	w := created.json(t)
	if field(t, "created", w, "count", "number") != 3.0 {
		t.Errorf("created watchlist count %v", w["count"])
	}
	id := w["id"].(string)
	if r := e.do(t, "POST", "/api/watchlists/"+id+"/symbols", map[string]any{"symbol": "KO"}, k).json(t); field(t, "added", r, "count", "number") != 4.0 {
		t.Errorf("count after adding KO: %v", r["count"])
	}
	e.do(t, "POST", "/api/watchlists", map[string]any{"name": "Empty"}, k)
	for _, l := range e.do(t, "GET", "/api/watchlists", nil, k).json2(t).([]any) {
		l := l.(map[string]any)
		syms, _ := field(t, "list", l, "symbols", "array").([]any)
		if field(t, "list", l, "count", "number") != float64(len(syms)) {
			t.Errorf("%v: count %v for %d symbols", l["name"], l["count"], len(syms))
		}
	}
	if g := e.do(t, "GET", "/api/watchlists/"+id, nil, k).json(t); g["count"] != 4.0 {
		t.Errorf("get: count %v", g["count"])
	}

	scan := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": []string{"MSFT", "NVDA", "JPM", "KO", "AAPL", "NOPE"}}, k).json(t)
	sum := scan["summary"].(map[string]any)
	rate, _ := field(t, "summary", sum, "compliance_rate_pct", "number").(float64)
	verdicts := sum["compliant"].(float64) + sum["non_compliant"].(float64) // questionable is in non_compliant
	if verdicts == 0 || fmt.Sprintf("%.2f", rate) != fmt.Sprintf("%.2f", 100*sum["compliant"].(float64)/verdicts) {
		t.Errorf("compliance_rate_pct %v for %v compliant of %v with a verdict", rate, sum["compliant"], verdicts)
	}
	passed := 0
	for sym, it := range scan["results"].(map[string]any) {
		it := it.(map[string]any)
		if it["business_screen_pass"] != true {
			continue
		}
		passed++
		reason, _ := field(t, sym, it, "business_screen_reason", "string").(string)
		cls, _ := it["business_classification"].(map[string]any)
		if !strings.HasPrefix(reason, "no prohibited activity found in ") && !strings.HasPrefix(reason, "doubtful: ") ||
			cls == nil || !strings.Contains(reason, cls["text"].(string)) && !strings.HasPrefix(reason, "doubtful: ") {
			t.Errorf("%s: business_screen_reason %q (classification %v)", sym, reason, cls)
		}
	}
	if passed < 3 {
		t.Errorf("only %d symbols passed the business screen", passed)
	}
}

// checkETFDisposition reads an ETF's disposition as the agent does and checks it against the verdict
// and the weights served: mostly_compliant only when QUESTIONABLE with more than half the weight
// compliant (so never with more weight unknown than compliant), questionable for the other
// QUESTIONABLE ones.
func checkETFDisposition(t *testing.T, where string, m map[string]any) string {
	t.Helper()
	d, _ := field(t, where, m, "disposition", "string").(string)
	st, _ := field(t, where, m, "compliance_status", "string").(string)
	pct := func(f string) decimal.Decimal {
		s, _ := field(t, where, m, f, "string").(string)
		v, err := decimal.NewFromString(s)
		if err != nil {
			t.Errorf("%s: %s %q", where, f, s)
		}
		return v
	}
	compliant, unknown := pct("compliant_weight_pct"), pct("unknown_weight_pct")
	p, _ := field(t, where, m, "purification_rate", "number", "null").(float64)
	want := map[string]string{"COMPLIANT": "compliant", "QUESTIONABLE": "questionable", "NON_COMPLIANT": "non_compliant", "INSUFFICIENT_DATA": "insufficient_data"}[st]
	switch {
	case want == "compliant" && p > 0:
		want = "compliant_with_purification"
	case want == "questionable" && compliant.GreaterThan(decimal.NewFromInt(50)):
		want = "mostly_compliant"
	}
	if d != want || d == "mostly_compliant" && !compliant.GreaterThan(unknown) {
		t.Errorf("%s: disposition %q for %s with %s%% compliant, %s%% unknown; want %q", where, d, st, compliant, unknown, want)
	}
	return d
}

// TestETFDispositionByWeights: ETF compare items and screenings carry a disposition that follows the
// weights served, the same in both; the verdict_rule says what the labels mean.
func TestETFDispositionByWeights(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	cmp := e.do(t, "POST", "/api/etf/compare", map[string]any{"symbols": []string{"SPUS", "HLAL"}}, k).json(t)
	for _, it := range cmp["items"].([]any) {
		it := it.(map[string]any)
		sym := it["symbol"].(string)
		d := checkETFDisposition(t, "compare "+sym, it)
		sc := e.do(t, "GET", "/api/etf/"+sym+"/screening", nil, k).json(t)
		if checkETFDisposition(t, "screening "+sym, sc) != d {
			t.Errorf("%s: compare disposition %q, screening %q", sym, d, sc["disposition"])
		}
		if rule, _ := field(t, sym, sc, "verdict_rule", "string").(string); !strings.Contains(rule, "mostly_compliant when QUESTIONABLE and more than half the weight is compliant") {
			t.Errorf("%s: verdict_rule %q", sym, rule)
		}
	}
}
