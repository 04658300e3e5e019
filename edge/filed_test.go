package edge_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/datapack"
)

// TestSharedFilingsScreenOnFiledNumbers loads the shared data set (with its inline-XBRL filings) and
// screens every company that has a filing in it: each stands on filed numbers with provenance, except
// WFC, whose 10-K carries its statements in an exhibit and so yields no fundamentals (its inputs stay
// illustrative and are labelled so, never zeros). AAPL has verdicts, with its interest income carried
// forward from the last fiscal year that reported one; GOOGL's market cap sums its share classes.
func TestSharedFilingsScreenOnFiledNumbers(t *testing.T) {
	t.Parallel()
	dir := sharedData(t, "sec/ixbrl")
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	p, x, err := datapack.ReadAllShared(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := datapack.Load(context.Background(), e.ref, p, x, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range rep.Problems {
		if strings.Contains(pr.File, "ixbrl") {
			t.Errorf("inline-XBRL problem: %s", pr)
		}
	}
	e.awaitData(t)
	syms := []string{"AAPL", "ABBV", "ADBE", "AMZN", "BA", "CRM", "GOOGL", "HD", "HUBS", "IBM", "JNJ", "KO", "MA", "META",
		"NFLX", "NKE", "NVDA", "PG", "TSLA", "UNH", "UNP", "V", "WMT", "XOM"}
	for _, sym := range syms {
		r := e.do(t, "POST", "/api/screen/"+sym, nil, k)
		if r.StatusCode != 200 {
			t.Errorf("%s: %d %s", sym, r.StatusCode, r.body)
			continue
		}
		res := r.json(t)
		dq := res["data_quality"].(map[string]any)
		refs := dq["source_refs"].([]any)
		if dq["illustrative"] != false || len(refs) == 0 || !strings.Contains(strings.Join(strs(dq["sources"]), ","), "filing") {
			t.Errorf("%s: not on filed numbers: %v", sym, dq)
		}
		t.Logf("%s: %s as of %s %s; refs %v", sym, res["compliance_status"], dq["as_of"], dq["period"], refs)
	}
	aapl := e.do(t, "POST", "/api/screen/AAPL", nil, k).json(t)
	dq := aapl["data_quality"].(map[string]any)
	cf, _ := dq["carried_forward"].([]any)
	if aapl["compliance_status"] == "INSUFFICIENT_DATA" || len(cf) != 1 || cf[0].(map[string]any)["field"] != "interest_income" {
		t.Fatalf("AAPL: %v %v", aapl["compliance_status"], dq)
	}
	// AAPL's latest period comes from its 10-Q of 2025-08-01, a document whose accession the shared
	// submissions do not list: the document names the filing and no EDGAR address is made up.
	pv := e.do(t, "GET", "/api/filings/AAPL/provenance", nil, k).json(t)
	ta := pv["inputs"].(map[string]any)["total_assets"].(map[string]any)
	if pv["period_end"] != "2025-06-28" || ta["document"] != "aapl-10-q-2025-08-01.html" || ta["accession"] != nil || ta["url"] != nil ||
		ta["cik"] != "0000320193" || ta["form"] != "10-Q" || ta["filed"] != "2025-08-01" || ta["value"] != 331495000000.0 {
		t.Errorf("AAPL provenance %v", pv)
	}
	// XOM's 10-Q (xom-10-q-2025-08-04.html) tags no interest income and no 10-K is on file to carry one
	// from: the income ratio is decided on a bound (cash of 14,352 M x (4.50% + 1.00%) x 3/12 against
	// revenues of 81,506 M: at most 0.2421%), named in data_quality.bounded and on the ratio, and the
	// answer validates against openapi.yaml like every other.
	xom := e.do(t, "POST", "/api/screen/XOM", nil, k).json(t)
	bd, _ := xom["data_quality"].(map[string]any)["bounded"].([]any)
	if len(bd) != 1 || bd[0].(map[string]any)["kind"] != "bounded" || bd[0].(map[string]any)["upper_bound"] != 197340000.0 {
		t.Errorf("XOM bounded: %v", xom["data_quality"])
	}
	for _, rr := range xom["by_methodology"].(map[string]any)["AAOIFI"].(map[string]any)["ratios"].([]any) {
		r := rr.(map[string]any)
		if b, _ := r["bound"].(map[string]any); r["id"] == "impure_revenue" && (b == nil || b["decided"] != "pass" || r["pass"] != true) {
			t.Errorf("XOM impure revenue ratio: %v", r)
		}
	}
	if !strings.Contains(xom["compliance_explanation"].(string), "bounded") {
		t.Errorf("XOM explanation: %v", xom["compliance_explanation"])
	}
	googl := e.do(t, "POST", "/api/screen/GOOGL", nil, k).json(t)
	if cls, _ := googl["data_quality"].(map[string]any)["share_classes"].([]any); len(cls) < 2 {
		t.Errorf("GOOGL share classes: %v", googl["data_quality"])
	}
	// The database stats count the companies standing on filings: the 24 with statements in their
	// primary documents, GOOG beside GOOGL (one CIK), SNOW from its companyfacts, and the 116 of the
	// companyfacts-derived set (118 less PG and WMT, which keep their inline-XBRL filings).
	st := e.do(t, "GET", "/api/database/stats", nil, k).json(t)
	fb := st["fundamentals_by_source"].(map[string]any)
	t.Logf("fundamentals by source: %v", fb)
	if fb["filed"] != 142.0 || fb["illustrative"].(float64) < 400 {
		t.Errorf("fundamentals by source %v", fb)
	}
	// MSFT stands on its filed quarters (companyfacts-derived): the provenance names the 10-K of the
	// fourth quarter and its filing date (total assets 758,376 M USD: quarters.jsonl, MSFT 2026-06-30, Assets).
	pv = e.do(t, "GET", "/api/filings/MSFT/provenance", nil, k).json(t)
	if ta := pv["inputs"].(map[string]any)["total_assets"].(map[string]any); pv["period_end"] != "2026-06-30" || ta["form"] != "10-K" ||
		ta["filed"] != "2026-07-29" || ta["source"] != "filing" || ta["value"] != 758376000000.0 {
		t.Errorf("MSFT provenance %v", pv)
	}
	// A portfolio scan says how many of its results are filed.
	scan := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": []string{"AAPL", "KO", "WFC", "MSFT"}}, k).json(t)
	if ds := scan["summary"].(map[string]any)["data_sources"].(map[string]any); ds["filed"] != 3.0 || ds["illustrative"] != 1.0 {
		t.Errorf("portfolio data sources %v", ds)
	}
	wfc := e.do(t, "POST", "/api/screen/WFC", nil, k).json(t)
	if wfc["data_quality"].(map[string]any)["illustrative"] != true {
		t.Errorf("WFC (statements in an exhibit) should stand on labelled illustrative inputs: %v", wfc["data_quality"])
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
