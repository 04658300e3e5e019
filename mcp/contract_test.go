package mcp_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/internal/jsoncontract"
)

// The contract tests of the MCP tools: each tool's structured result is read the way the
// ecosystem's agents and bots read it, by field name and JSON type, never through this repository's
// Go types.

// jsonKind and want read a tool result as the agents do (internal/jsoncontract).
var (
	jsonKind = jsoncontract.Type
	want     = jsoncontract.Field
)

var verdictBool = map[string]any{"compliant": true, "non_compliant": false, "questionable": false, "insufficient_data": nil}

// checkResult reads one screening result as the agent does: the lower-case overall verdict beside the
// upper-case one, by_methodology keyed AAOIFI, DJIM, FTSE, MSCI, SP with is_compliant, status and
// disposition, and purification_rate in percent beside purification_rate_fraction.
func checkResult(t *testing.T, where string, r map[string]any) {
	t.Helper()
	status, _ := want(t, where, r, "compliance_status", "string").(string)
	lower, _ := want(t, where, r, "shariah_compliance_status", "string").(string)
	if _, known := verdictBool[lower]; !known || lower != strings.ToLower(status) {
		t.Errorf("%s: shariah_compliance_status %q for compliance_status %q", where, lower, status)
	}
	// The yes/no is verdict_methodology's verdict (the ruleset's primary: AAOIFI by default), whatever
	// the overall four-state verdict says.
	vm, _ := want(t, where, r, "verdict_methodology", "string").(string)
	isc := want(t, where, r, "is_compliant", "boolean", "null")
	if m, ok := r["methodology"].(string); ok && m != vm || !ok && vm != "AAOIFI" {
		t.Errorf("%s: verdict_methodology %q (methodology %v)", where, vm, r["methodology"])
	}
	if ms, _ := r["methodologies"].(map[string]any); isc != verdictBool[fmt.Sprint(ms[vm])] {
		t.Errorf("%s: is_compliant %v, %s's verdict %v", where, isc, vm, ms[vm])
	}
	if ms, _ := want(t, where, r, "methodologies", "object").(map[string]any); ms["S&P"] == nil {
		t.Errorf("%s: methodologies lost S&P: %v", where, ms)
	}
	by, _ := want(t, where, r, "by_methodology", "object").(map[string]any)
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "AAOIFI,DJIM,FTSE,MSCI,SP" {
		t.Errorf("%s: by_methodology keys %v", where, keys)
	}
	for _, k := range keys {
		e, _ := by[k].(map[string]any)
		w := where + " by_methodology." + k
		v, _ := want(t, w, e, "verdict", "string").(string)
		if want(t, w, e, "status", "string") != v || want(t, w, e, "disposition", "string") != v {
			t.Errorf("%s: verdict %q status %v disposition %v", w, v, e["status"], e["disposition"])
		}
		if isc := want(t, w, e, "is_compliant", "boolean", "null"); isc != verdictBool[v] {
			t.Errorf("%s: is_compliant %v for %s", w, isc, v)
		}
		want(t, w, e, "verified", "boolean")
		want(t, w, e, "reason", "string")
	}
	checkPurification(t, where, r)
	for _, f := range []string{"business_screen_pass", "financial_screen_pass"} {
		want(t, where, r, f, "boolean", "null")
	}
	want(t, where, r, "business_screen_reason", "string", "null")
}

// checkDisposition reads an ETF's disposition as the agent does and checks it against the verdict and
// the weights served: mostly_compliant only for QUESTIONABLE with more than half the weight compliant
// (so never with more weight unknown than compliant), questionable for the other QUESTIONABLE ones.
func checkDisposition(t *testing.T, where string, m map[string]any) string {
	t.Helper()
	d, _ := want(t, where, m, "disposition", "string").(string)
	st, _ := want(t, where, m, "compliance_status", "string").(string)
	pct := func(f string) float64 {
		s, _ := want(t, where, m, f, "string").(string)
		var v float64
		if _, err := fmt.Sscan(s, &v); err != nil {
			t.Errorf("%s: %s %q is not a percentage", where, f, s)
		}
		return v
	}
	compliant, unknown := pct("compliant_weight_pct"), pct("unknown_weight_pct")
	p, _ := want(t, where, m, "purification_rate", "number", "null").(float64)
	wantD := map[string]string{"COMPLIANT": "compliant", "QUESTIONABLE": "questionable", "NON_COMPLIANT": "non_compliant", "INSUFFICIENT_DATA": "insufficient_data"}[st]
	switch {
	case wantD == "compliant" && p > 0:
		wantD = "compliant_with_purification"
	case wantD == "questionable" && compliant > 50:
		wantD = "mostly_compliant"
	}
	if d != wantD || d == "mostly_compliant" && unknown >= compliant {
		t.Errorf("%s: disposition %q for %s with %v%% compliant, %v%% unknown, purification_rate %v; want %q", where, d, st, compliant, unknown, p, wantD)
	}
	return d
}

// checkPurification: purification_rate is percent, purification_rate_fraction the fraction (both null or both numbers).
func checkPurification(t *testing.T, where string, r map[string]any) {
	t.Helper()
	pct := want(t, where, r, "purification_rate", "number", "null")
	frac := want(t, where, r, "purification_rate_fraction", "number", "null")
	if (pct == nil) != (frac == nil) {
		t.Errorf("%s: purification_rate %v, fraction %v", where, pct, frac)
	} else if pct != nil && (math.Abs(pct.(float64)-frac.(float64)*100) > 1e-9 || frac.(float64) < 0 || frac.(float64) > 1) {
		t.Errorf("%s: purification_rate %v is not 100 x purification_rate_fraction %v", where, pct, frac)
	}
}

func TestContractZakatTool(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "calculate_zakat", map[string]any{"holdings": []any{
		map[string]any{"symbol": "AAPL", "market_value": 30000}, map[string]any{"symbol": "MSFT", "market_value": 10000}}, "cash": 3000})
	if res.IsError {
		t.Fatalf("calculate_zakat: %s", text(res))
	}
	w := "calculate_zakat"
	if want(t, w, m, "total_market_value", "number") != 43000.0 || want(t, w, m, "is_above_nisab", "boolean") != true ||
		want(t, w, m, "total_zakat", "number") != 1075.0 {
		t.Errorf("zakat totals: %v %v %v", m["total_market_value"], m["is_above_nisab"], m["total_zakat"])
	}
	if th := want(t, w, m, "nisab_threshold", "number"); th == nil || th != m["nisab"].(map[string]any)["threshold"] {
		t.Errorf("nisab_threshold %v, nisab %v", th, m["nisab"])
	}
	shares := map[string]any{}
	for _, hd := range want(t, w, m, "holdings", "array").([]any) {
		hd := hd.(map[string]any)
		shares[hd["symbol"].(string)] = want(t, w+" holding", hd, "zakat_amount", "number")
	}
	if shares["AAPL"] != 750.0 || shares["MSFT"] != 250.0 {
		t.Errorf("holding shares of the zakat %v", shares)
	}
	// A bad market_value is refused, naming the holding by its index.
	res, _ = h.call(t, "calculate_zakat", map[string]any{"holdings": []any{
		map[string]any{"symbol": "AAPL", "market_value": 1}, map[string]any{"symbol": "MSFT", "market_value": "lots"}}})
	if !res.IsError || !strings.Contains(text(res), "holdings.1.market_value") {
		t.Errorf("market_value lots: %s", text(res))
	}
}

func TestContractScanPortfolioAndReportTools(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "scan_portfolio", map[string]any{"symbols": []any{"msft", "KO", "ko", "NOPE123", "SPUS"}})
	if res.IsError {
		t.Fatalf("scan_portfolio: %s", text(res))
	}
	results, _ := want(t, "scan", m, "results", "object").(map[string]any)
	if len(results) != 4 {
		t.Fatalf("results keyed by symbol: %v", results)
	}
	var compliant, non, pending float64
	for _, key := range []string{"MSFT", "KO", "NOPE123", "SPUS"} {
		it, _ := results[key].(map[string]any)
		if it == nil {
			t.Fatalf("no entry %s", key)
		}
		st, _ := want(t, key, it, "status", "string").(string)
		switch want(t, key, it, "is_compliant", "boolean", "null") {
		case true:
			compliant++
		case false:
			non++
		default:
			pending++
		}
		switch st {
		case "NOT_FOUND", "NOT_SCREENABLE":
			if key == "MSFT" || key == "KO" {
				t.Errorf("%s: %s", key, st)
			}
			// The tracker shows error_message; NOT_FOUND has the words of the single-symbol 404.
			msg, _ := want(t, key, it, "error_message", "string").(string)
			if st == "NOT_FOUND" && msg != "Symbol "+key+" not found in any database." || msg == "" {
				t.Errorf("%s (%s): error_message %q", key, st, msg)
			}
		default:
			if _, ok := it["error_message"]; ok {
				t.Errorf("%s: a screened symbol has error_message %v", key, it["error_message"])
			}
			checkResult(t, "scan "+key, it)
			// status is COMPLIANT exactly when is_compliant is true (a one-word client's yes), else
			// compliance_status.
			if ws := it["compliance_status"]; it["status"] != ws && (it["is_compliant"] != true || it["status"] != "COMPLIANT") {
				t.Errorf("%s: status %v, compliance_status %v, is_compliant %v", key, it["status"], ws, it["is_compliant"])
			}
		}
	}
	if results["NOPE123"].(map[string]any)["status"] != "NOT_FOUND" {
		t.Errorf("NOPE123: %v", results["NOPE123"])
	}
	sum, _ := want(t, "scan", m, "summary", "object").(map[string]any)
	for _, f := range []string{"total", "compliant", "non_compliant", "questionable", "pending", "not_found", "avg_purification_rate_count"} {
		want(t, "summary", sum, f, "number")
	}
	want(t, "summary", sum, "avg_purification_rate", "number", "null")
	// compliance_rate_pct is a number like its siblings: compliant among the symbols with a verdict.
	if rate, _ := want(t, "summary", sum, "compliance_rate_pct", "number").(float64); compliant+non > 0 &&
		fmt.Sprintf("%.2f", rate) != fmt.Sprintf("%.2f", 100*compliant/(compliant+non)) {
		t.Errorf("compliance_rate_pct %v for %v compliant, %v non-compliant", rate, compliant, non)
	}
	if sum["total"] != 4.0 || sum["compliant"] != compliant || sum["non_compliant"] != non || sum["pending"] != pending || sum["not_found"] != 1.0 {
		t.Errorf("summary %v (compliant %v non %v pending %v)", sum, compliant, non, pending)
	}
	if ds, _ := want(t, "scan", m, "disclaimers", "array").([]any); len(ds) == 0 {
		t.Error("scan: no disclaimers")
	}

	// generate_report: the screening report's result, the portfolio report's summary and holdings.
	res, m = h.call(t, "generate_report", map[string]any{"report_type": "screening", "symbol": "MSFT"})
	if res.IsError {
		t.Fatalf("report: %s", text(res))
	}
	checkResult(t, "screening report", want(t, "report", m, "result", "object").(map[string]any))
	res, m = h.call(t, "generate_report", map[string]any{"report_type": "portfolio", "symbols": []any{"msft", "KO", "ko", "NOPE123", "SPUS"}})
	if res.IsError {
		t.Fatalf("portfolio report: %s", text(res))
	}
	rs, _ := want(t, "portfolio report", m, "summary", "object").(map[string]any)
	for _, f := range []string{"total", "compliant", "non_compliant", "pending", "not_found", "avg_purification_rate", "avg_purification_rate_count"} {
		if fmt.Sprint(rs[f]) != fmt.Sprint(sum[f]) {
			t.Errorf("portfolio report summary %s = %v, scan %v", f, rs[f], sum[f])
		}
	}
	holdings, _ := want(t, "portfolio report", m, "holdings", "array").([]any)
	if len(holdings) != 4 {
		t.Fatalf("portfolio report holdings %d", len(holdings))
	}
	for _, hd := range holdings {
		hd := hd.(map[string]any)
		if r, ok := hd["result"].(map[string]any); ok {
			checkResult(t, "portfolio report holding "+hd["symbol"].(string), r)
		}
	}
}

func TestContractScreeningTools(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "compare_stocks", map[string]any{"symbols": []any{"MSFT", "KO", "AAPL"}})
	if res.IsError {
		t.Fatalf("compare_stocks: %s", text(res))
	}
	items, _ := want(t, "compare_stocks", m, "items", "array").([]any)
	if len(items) != 3 {
		t.Fatalf("compare_stocks items %v", items)
	}
	for _, it := range items {
		checkResult(t, "compare_stocks "+it.(map[string]any)["symbol"].(string), it.(map[string]any))
	}
	res, m = h.call(t, "get_all_screening_results", map[string]any{"limit": 10})
	if res.IsError {
		t.Fatalf("get_all_screening_results: %s", text(res))
	}
	all, _ := want(t, "get_all_screening_results", m, "results", "array").([]any)
	if len(all) < 3 {
		t.Fatalf("get_all_screening_results: %d results", len(all))
	}
	for _, it := range all {
		checkResult(t, "get_all_screening_results "+it.(map[string]any)["symbol"].(string), it.(map[string]any))
	}

	// screen_etf and compare_etfs: the disposition the clients read, by the weights served.
	res, m = h.call(t, "screen_etf", map[string]any{"symbol": "SPUS"})
	if res.IsError {
		t.Fatalf("screen_etf: %s", text(res))
	}
	d := checkDisposition(t, "screen_etf SPUS", m) // the look-through itself
	res, m = h.call(t, "compare_etfs", map[string]any{"symbols": []any{"SPUS", "HLAL"}})
	if res.IsError {
		t.Fatalf("compare_etfs: %s", text(res))
	}
	for _, it := range want(t, "compare_etfs", m, "items", "array").([]any) {
		it := it.(map[string]any)
		if cd := checkDisposition(t, fmt.Sprint("compare_etfs ", it["symbol"]), it); it["symbol"] == "SPUS" && cd != d {
			t.Errorf("compare_etfs SPUS: disposition %q, screen_etf %q", cd, d)
		}
	}

	// get_quote: the market_data disclaimer on each quote and beside the quotes.
	res, m = h.call(t, "get_quote", map[string]any{"symbol": "AAPL"})
	if res.IsError {
		t.Fatalf("get_quote: %s", text(res))
	}
	q, _ := m["quotes"].(map[string]any)["AAPL"].(map[string]any)
	qd, _ := q["disclaimers"].([]any)
	td, _ := want(t, "get_quote", m, "disclaimers", "array").([]any)
	if len(qd) != 1 || len(td) != 1 || qd[0].(map[string]any)["id"] != "market_data" || td[0].(map[string]any)["id"] != "market_data" {
		t.Errorf("get_quote disclaimers: %v / %v", qd, td)
	}
	want(t, "get_quote", q, "changePercent", "number", "null")
}

// TestContractWatchlistCount: manage_watchlist's watchlists carry count, the number of their symbols,
// as REST's do (the agent's completion shows "3 symbols").
func TestContractWatchlistCount(t *testing.T) {
	t.Parallel()
	h := start(t)
	res, m := h.call(t, "manage_watchlist", map[string]any{"action": "create", "name": "Halal Tech", "symbols": []any{"MSFT", "NVDA", "AAPL"}})
	if res.IsError {
		t.Fatalf("create: %s", text(res))
	}
	w, _ := want(t, "create", m, "watchlist", "object").(map[string]any)
	if want(t, "create", w, "count", "number") != 3.0 {
		t.Errorf("created count %v", w["count"])
	}
	res, m = h.call(t, "manage_watchlist", map[string]any{"action": "add_symbol", "watchlist_id": w["id"], "symbol": "KO"})
	if w, _ := want(t, "add_symbol", m, "watchlist", "object").(map[string]any); res.IsError || want(t, "add_symbol", w, "count", "number") != 4.0 {
		t.Errorf("count after add_symbol: %s %v", text(res), w)
	}
	res, m = h.call(t, "manage_watchlist", map[string]any{"action": "list"})
	lists, _ := want(t, "list", m, "watchlists", "array").([]any)
	if res.IsError || len(lists) == 0 {
		t.Fatalf("list: %s", text(res))
	}
	for _, l := range lists {
		l := l.(map[string]any)
		syms, _ := want(t, "list", l, "symbols", "array").([]any)
		if want(t, "list", l, "count", "number") != float64(len(syms)) {
			t.Errorf("%v: count %v for %d symbols", l["name"], l["count"], len(syms))
		}
	}
}
