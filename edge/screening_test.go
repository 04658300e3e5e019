package edge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
)

func TestScreenRouteCachingAndCosts(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	first := e.do(t, "POST", "/api/screen/TCS.NS", nil, k)
	r := first.json(t)
	if first.StatusCode != 200 || r["symbol"] != "TCS.NS" || first.Header.Get("X-Cache") != "MISS" || first.Header.Get("X-Tokens-Charged") != "10" {
		t.Fatalf("first screen: %d %v %s", first.StatusCode, first.Header, first.body)
	}
	// every field of the contract (openapi.yaml) is present
	for _, f := range []string{"symbol", "name", "is_compliant", "compliance_status", "overall_status", "methodologies", "by_methodology",
		"aaoifi_compliant", "djim_compliant", "ftse_compliant", "msci_compliant", "sp_compliant", "revenue_breakdown", "financial_ratios",
		"purification_rate", "purification_rate_pct", "compliance_explanation", "disclaimers", "screened_at", "ruleset", "data_quality"} {
		if _, ok := r[f]; !ok {
			t.Errorf("result lacks %s", f)
		}
	}
	for name, m := range r["by_methodology"].(map[string]any) {
		if m.(map[string]any)["verified"] != true {
			t.Errorf("%s not verified", name)
		}
	}
	if !strings.Contains(r["compliance_explanation"].(string), "illustrative") || r["data_quality"].(map[string]any)["illustrative"] != true {
		t.Fatalf("illustrative inputs not said: %v", r["compliance_explanation"])
	}
	if len(r["disclaimers"].([]any)) < 2 {
		t.Fatalf("disclaimers %v", r["disclaimers"])
	}
	// GET is an alias with the same behaviour; now cached: 5 tokens
	second := e.do(t, "GET", "/api/screen/tcs.ns", nil, k)
	if second.Header.Get("X-Cache") != "HIT" || second.Header.Get("X-Tokens-Charged") != "5" || second.json(t)["screened_at"] != r["screened_at"] {
		t.Fatalf("cached screen: %v", second.Header)
	}
	forced := e.do(t, "GET", "/api/screen/TCS.NS?force_refresh=true", nil, k)
	if forced.Header.Get("X-Cache") != "MISS" || forced.Header.Get("X-Tokens-Charged") != "10" || forced.json(t)["screened_at"] == r["screened_at"] {
		t.Fatalf("force_refresh: %v", forced.Header)
	}
	// ruleset and methodology
	sp := e.do(t, "POST", "/api/screen/TCS.NS?ruleset=sp-2023&methodology=sp", nil, k).json(t)
	if sp["ruleset"].(map[string]any)["name"] != "sp-2023" || sp["methodology"] != "S&P" || len(sp["methodologies"].(map[string]any)) != 1 {
		t.Fatalf("sp-2023: %v %v", sp["ruleset"], sp["methodologies"])
	}
	for path, want := range map[string]int{
		"/api/screen/TCS.NS?ruleset=nope":                         422,
		"/api/screen/TCS.NS?methodology=sharia-board":             422,
		"/api/screen/TCS.NS?ruleset=djim-2026&methodology=aaoifi": 422,
		"/api/screen/TCS.NS?force_refresh=maybe":                  422,
		"/api/screen/NOPE":                                        404,
		"/api/screen/SPUS":                                        422,
		"/api/screen/%3Cx%3E":                                     422,
	} {
		r := e.do(t, "POST", path, nil, k)
		if r.StatusCode != want || r.Header.Get("X-Tokens-Charged") != "0" {
			t.Errorf("%s: %d charged %s, want %d and a refund (%s)", path, r.StatusCode, r.Header.Get("X-Tokens-Charged"), want, r.body)
		}
	}
	bad := e.do(t, "POST", "/api/screen/TCS.NS?ruleset=nope", nil, k)
	if !strings.Contains(string(bad.body), "spec") || !strings.Contains(string(bad.body), "djim-2026") {
		t.Fatalf("422 must list the valid rulesets: %s", bad.body)
	}
	// the asset view now carries the screening
	if full := e.do(t, "GET", "/api/asset/TCS.NS/full", nil, k).json(t); full["screening"] == nil {
		t.Fatal("full view lacks the cached screening")
	}
}

func TestCachedResultsAndUpdates(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	if r := e.do(t, "GET", "/api/result/6758.T", nil, k); r.StatusCode != 404 {
		t.Fatalf("never screened: %d", r.StatusCode)
	}
	before := time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano)
	e.do(t, "POST", "/api/screen/6758.T", nil, k)
	r := e.do(t, "GET", "/api/result/6758.T", nil, k)
	if r.StatusCode != 200 || r.json(t)["symbol"] != "6758.T" || r.Header.Get("X-Tokens-Charged") != "2" {
		t.Fatalf("cached result: %d %s", r.StatusCode, r.body)
	}
	all := e.do(t, "GET", "/api/results", nil, k).json2(t).([]any)
	found := false
	for _, x := range all {
		found = found || x.(map[string]any)["symbol"] == "6758.T"
	}
	if !found {
		t.Fatal("/api/results lacks the screened symbol")
	}
	up := e.do(t, "GET", "/api/results/updates?since="+before, nil, k).json2(t).([]any)
	if len(up) == 0 || up[len(up)-1].(map[string]any)["symbol"] != "6758.T" {
		t.Fatalf("updates since before: %v", up)
	}
	after := time.Now().UTC().Add(time.Minute).Format(time.RFC3339)
	if up := e.do(t, "GET", "/api/results/updates?since="+after, nil, k).json2(t).([]any); len(up) != 0 {
		t.Fatalf("updates since the future: %d", len(up))
	}
	if up := e.do(t, "GET", "/api/results/updates?since="+before+"&run_id=run-x", nil, k).json2(t).([]any); len(up) != 0 {
		t.Fatalf("run filter: %d", len(up))
	}
	for _, q := range []string{"", "?since=yesterday", "?since=2026-13-01"} {
		r := e.do(t, "GET", "/api/results/updates"+q, nil, k)
		if r.StatusCode != 400 || r.errCode(t) != "HTTP_400" {
			t.Errorf("%q: %d %s", q, r.StatusCode, r.body)
		}
	}
}

// TestPortfolioCompareAndReports covers the multi-symbol routes.
func TestPortfolioCompareAndReports(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	pro := key(e.newKey(t, account.PlanPro))
	ent := key(e.newKey(t, account.PlanEnterprise))
	body := map[string]any{"symbols": []string{"MSFT", "JPM", "NOPE", "SPUS", "brk.b"}, "force_refresh": true}
	r := e.do(t, "POST", "/api/portfolio/scan", body, pro)
	m := r.json(t)
	if r.StatusCode != 200 || m["force_refresh_applied"] != false || r.Header.Get("X-Tokens-Charged") != "10" {
		t.Fatalf("scan: %d %v %s", r.StatusCode, r.Header.Get("X-Tokens-Charged"), r.body)
	}
	// results is keyed by the symbol as written (upper-cased): brk.b stays BRK.B, its entry's symbol BRK-B.
	status := map[string]string{}
	for k, it := range m["results"].(map[string]any) {
		it := it.(map[string]any)
		status[k] = it["status"].(string)
		if k == "BRK.B" && it["symbol"] != "BRK-B" {
			t.Fatalf("BRK.B entry %v", it["symbol"])
		}
	}
	if status["JPM"] != "NON_COMPLIANT" || status["NOPE"] != "NOT_FOUND" || status["SPUS"] != "NOT_SCREENABLE" || status["BRK.B"] == "" || len(status) != 5 {
		t.Fatalf("statuses %v", status)
	}
	sum := m["summary"].(map[string]any)
	if sum["total"] != 5.0 || sum["not_found"] != 1.0 || sum["not_screenable"] != 1.0 || sum["non_compliant"].(float64) < 1 {
		t.Fatalf("summary %v", sum)
	}
	// The three screened symbols stand on the default universe's illustrative numbers, and say so.
	if ds := sum["data_sources"].(map[string]any); ds["illustrative"] != 3.0 || ds["filed"] != 0.0 || ds["no_fundamentals"] != 0.0 {
		t.Fatalf("summary data sources %v", ds)
	}
	if e.do(t, "POST", "/api/portfolio/scan", body, ent).json(t)["force_refresh_applied"] != true {
		t.Fatal("enterprise force_refresh not honoured")
	}
	// The query parameter is held to the same plan rule as the body field (it used to bypass it).
	plain := map[string]any{"symbols": []string{"MSFT"}}
	if m := e.do(t, "POST", "/api/portfolio/scan?force_refresh=true", plain, pro).json(t); m["force_refresh_applied"] != false {
		t.Fatalf("pro force_refresh by query applied: %v", m["force_refresh_applied"])
	}
	if m := e.do(t, "POST", "/api/portfolio/scan?force_refresh=true", plain, ent).json(t); m["force_refresh_applied"] != true {
		t.Fatalf("enterprise force_refresh by query not applied: %v", m["force_refresh_applied"])
	}
	for _, b := range []any{map[string]any{"symbols": []string{}}, map[string]any{"symbols": make([]string, 101)}, map[string]any{"force_refresh": "yes", "symbols": []string{"A"}}} {
		if r := e.do(t, "POST", "/api/portfolio/scan", b, pro); r.StatusCode != 422 {
			t.Errorf("%v: %d", b, r.StatusCode)
		}
	}
	// compare: 2 to 5, else 400
	cmp := e.do(t, "POST", "/api/compare", map[string]any{"symbols": []string{"MSFT", "KO"}}, pro)
	items := cmp.json(t)["items"].([]any)
	if cmp.StatusCode != 200 || len(items) != 2 || items[0].(map[string]any)["quote"] == nil || items[1].(map[string]any)["database"].(map[string]any)["name"] != "The Coca-Cola Company" {
		t.Fatalf("compare: %d %s", cmp.StatusCode, cmp.body)
	}
	// MSFT stands on illustrative inputs in the default pack: its item is marked beside its status.
	if mk := items[0].(map[string]any)["marks"].([]any); len(mk) != 1 || mk[0] != "illustrative" {
		t.Fatalf("compare: MSFT's marks %v", mk)
	}
	for _, syms := range [][]string{{"MSFT"}, {"A", "B", "C", "D", "E", "F"}} {
		if r := e.do(t, "POST", "/api/compare", map[string]any{"symbols": syms}, pro); r.StatusCode != 400 || r.errCode(t) != "HTTP_400" {
			t.Errorf("%d symbols: %d", len(syms), r.StatusCode)
		}
	}
	if r := e.do(t, "POST", "/api/compare", map[string]any{"symbols": []string{"MSFT", "NOPE"}}, pro); r.StatusCode != 404 {
		t.Errorf("unknown in compare: %d", r.StatusCode)
	}
	rep := e.do(t, "GET", "/api/reports/screening/MSFT", nil, pro).json(t)
	if rep["report_type"] != "screening" || len(rep["sections"].([]any)) != 5 || rep["result"] == nil {
		t.Fatalf("report %v", rep["sections"])
	}
	if v := rep["sections"].([]any)[0].(map[string]any)["body"].(string); !strings.HasPrefix(v, "Marked illustrative: ") {
		t.Fatalf("report verdict without the illustrative mark: %q", v)
	}
	prep := e.do(t, "POST", "/api/reports/portfolio", map[string]any{"symbols": []string{"MSFT", "KO"}}, pro).json(t)
	if prep["report_type"] != "portfolio" || len(prep["holdings"].([]any)) != 2 || len(prep["disclaimers"].([]any)) == 0 {
		t.Fatalf("portfolio report %v", prep)
	}
}

// TestEveryDefaultEquityUnderEveryRuleset: the "done when": each equity of the default universe
// gets a complete, explained, sourced verdict under every ruleset.
func TestEveryDefaultEquityUnderEveryRuleset(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	syms := e.do(t, "GET", "/api/database/search?asset_type=equities&limit=500", nil, k).json(t)["results"].([]any)
	if len(syms) < 30 {
		t.Fatalf("%d equities", len(syms))
	}
	for _, rs := range e.srv.Rulesets() {
		for _, s := range syms {
			if s.(map[string]any)["source"] != "default-pack" { // other tests add records of their own
				continue
			}
			sym := s.(map[string]any)["symbol"].(string)
			r := e.do(t, "POST", "/api/screen/"+sym+"?ruleset="+rs, nil, k)
			m := r.json(t)
			dq := m["data_quality"].(map[string]any)
			if r.StatusCode != 200 || m["compliance_explanation"] == "" || len(dq["sources"].([]any)) == 0 || dq["as_of"] == "" ||
				len(m["by_methodology"].(map[string]any)) == 0 || m["compliance_status"] == "INSUFFICIENT_DATA" {
				t.Fatalf("%s under %s: %d %v %v", sym, rs, r.StatusCode, m["compliance_status"], m["compliance_explanation"])
			}
		}
	}
}
