package edge_test

import (
	"context"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/internal/jsoncontract"
	"github.com/shariah-screen/shariah/internal/mcptest"
	"github.com/shariah-screen/shariah/mcp"
	"github.com/shariah-screen/shariah/screening"
)

// jsonType and field read a response as the clients do (internal/jsoncontract).
var (
	jsonType = jsoncontract.Type
	field    = jsoncontract.Field
)

// The screening contract tests: every route and tool that returns a screening result is read
// the way the existing client ecosystem (Python and JavaScript SDKs, the research agent, the Discord
// bot) reads it: by field name and JSON type, never through this repository's Go types.

var (
	lowerVerdicts   = map[string]bool{"compliant": true, "non_compliant": true, "questionable": true, "insufficient_data": true}
	methodologyKeys = []string{"AAOIFI", "DJIM", "FTSE", "MSCI", "SP"}
	// The fields of a screening result clients rely on (the ScreeningResult of openapi.yaml).
	specFields = []string{"symbol", "name", "is_compliant", "compliance_status", "overall_status", "methodologies", "by_methodology",
		"aaoifi_compliant", "djim_compliant", "ftse_compliant", "msci_compliant", "sp_compliant", "revenue_breakdown",
		"financial_ratios", "purification_rate", "compliance_explanation", "disclaimers"}
)

// checkPercent checks purification_rate == purification_rate_fraction x 100 (both null, or both numbers).
func checkPercent(t *testing.T, where string, m map[string]any) {
	t.Helper()
	pct := field(t, where, m, "purification_rate", "number", "null")
	frac := field(t, where, m, "purification_rate_fraction", "number", "null")
	if (pct == nil) != (frac == nil) {
		t.Errorf("%s: purification_rate %v but purification_rate_fraction %v", where, pct, frac)
		return
	}
	if pct != nil && math.Abs(pct.(float64)-frac.(float64)*100) > 1e-9 {
		t.Errorf("%s: purification_rate %v is not purification_rate_fraction %v x 100", where, pct, frac)
	}
	if frac != nil && (frac.(float64) < 0 || frac.(float64) > 1) {
		t.Errorf("%s: purification_rate_fraction %v outside [0, 1]", where, frac)
	}
}

// checkScreening reads one screening result as a client does and checks every field's type and the
// rules between them; it returns the result for checks of known values.
func checkScreening(t *testing.T, where string, r map[string]any) map[string]any {
	t.Helper()
	for _, f := range specFields {
		if _, ok := r[f]; !ok {
			t.Errorf("%s: the contract's field %q is gone", where, f)
		}
	}
	field(t, where, r, "symbol", "string")
	field(t, where, r, "name", "string")
	isc := field(t, where, r, "is_compliant", "boolean", "null")
	status, _ := field(t, where, r, "compliance_status", "string").(string)
	lower, _ := field(t, where, r, "shariah_compliance_status", "string").(string)
	if lower != strings.ToLower(status) || !lowerVerdicts[lower] {
		t.Errorf("%s: shariah_compliance_status %q for compliance_status %q", where, lower, status)
	}
	// The yes/no is verdict_methodology's verdict (the ruleset's primary, AAOIFI for spec, or the
	// ?methodology= one), whatever the four-state compliance_status; the financial screen is its ratios.
	vm, _ := field(t, where, r, "verdict_methodology", "string").(string)
	rsRef, _ := r["ruleset"].(map[string]any)
	if m, ok := r["methodology"].(string); (ok && m != vm) || (!ok && rsRef["name"] == "spec" && vm != "AAOIFI") {
		t.Errorf("%s: verdict_methodology %q, methodology %v", where, vm, r["methodology"])
	}
	if ms, _ := r["methodologies"].(map[string]any); isc != map[any]any{"compliant": true, "non_compliant": false, "questionable": false, "insufficient_data": nil}[ms[vm]] {
		t.Errorf("%s: is_compliant %v, %s's verdict %v", where, isc, vm, ms[vm])
	}
	if by, _ := r["by_methodology"].(map[string]any); r["financial_screen_pass"] == false {
		e, _ := by[screening.MethodologyKey(vm)].(map[string]any)
		failing := false
		for _, rr := range e["ratios"].([]any) {
			failing = failing || rr.(map[string]any)["pass"] == false
		}
		if !failing {
			t.Errorf("%s: financial_screen_pass false but no ratio of %s fails", where, vm)
		}
	}
	field(t, where, r, "overall_status", "string")
	for _, f := range []string{"aaoifi_compliant", "djim_compliant", "ftse_compliant", "msci_compliant", "sp_compliant",
		"business_screen_pass", "financial_screen_pass"} {
		field(t, where, r, f, "boolean", "null")
	}
	for _, f := range []string{"business_screen_reason", "sector", "industry", "market_cap_currency"} {
		field(t, where, r, f, "string", "null")
	}
	for _, f := range []string{"market_cap", "debt_to_market_cap_ratio", "cash_to_market_cap_ratio", "liquidity_to_market_cap_ratio",
		"accounts_receivable_to_assets_ratio", "interest_income_to_revenue_ratio", "purification_rate_pct"} {
		field(t, where, r, f, "number", "null")
	}
	checkPercent(t, where, r)
	if p, f := r["purification_rate"], r["purification_rate_pct"]; p != f {
		t.Errorf("%s: purification_rate %v != purification_rate_pct %v", where, p, f)
	}
	field(t, where, r, "compliance_explanation", "string")
	field(t, where, r, "disclaimers", "array")
	field(t, where, r, "revenue_breakdown", "object")
	field(t, where, r, "financial_ratios", "object")
	if ab, ok := r["abstain_reason"]; (status == "INSUFFICIENT_DATA") != ok {
		t.Errorf("%s: abstain_reason %v for %s", where, ab, status)
	} else if ok {
		field(t, where, r, "abstain_reason", "string")
	}
	if ms, _ := field(t, where, r, "methodologies", "object").(map[string]any); ms != nil {
		if _, ok := ms["S&P"]; !ok {
			t.Errorf("%s: methodologies lost S&P: %v", where, ms)
		}
	}
	by, _ := field(t, where, r, "by_methodology", "object").(map[string]any)
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != strings.Join(methodologyKeys, ",") {
		t.Errorf("%s: by_methodology keys %v, want %v", where, keys, methodologyKeys)
	}
	insufficient := []string{}
	for _, k := range keys {
		e, _ := by[k].(map[string]any)
		w := where + " by_methodology." + k
		v, _ := field(t, w, e, "verdict", "string").(string)
		if !lowerVerdicts[v] || e["status"] != v || e["disposition"] != v {
			t.Errorf("%s: verdict %q status %v disposition %v", w, v, e["status"], e["disposition"])
		}
		if want := map[string]any{"compliant": true, "non_compliant": false, "questionable": false, "insufficient_data": nil}[v]; field(t, w, e, "is_compliant", "boolean", "null") != want {
			t.Errorf("%s: is_compliant %v for %s", w, e["is_compliant"], v)
		}
		if field(t, w, e, "verified", "boolean") != true {
			t.Errorf("%s: verified %v", w, e["verified"])
		}
		field(t, w, e, "reason", "string")
		if v == "insufficient_data" {
			insufficient = append(insufficient, k)
		}
	}
	dq, _ := field(t, where, r, "data_quality", "object").(map[string]any)
	mi, _ := field(t, where+" data_quality", dq, "methodologies_insufficient", "array").([]any)
	var got []string
	for _, m := range mi {
		got = append(got, m.(string))
	}
	if strings.Join(got, ",") != strings.Join(insufficient, ",") {
		t.Errorf("%s: methodologies_insufficient %v, want %v", where, got, insufficient)
	}
	return r
}

// bulkRatioFields are the flat informational ratios a bulk row carries, as the screening result does.
var bulkRatioFields = []string{"market_cap", "debt_to_market_cap_ratio", "cash_to_market_cap_ratio", "liquidity_to_market_cap_ratio",
	"accounts_receivable_to_assets_ratio", "interest_income_to_revenue_ratio"}

// checkByMethodology reads by_methodology as the agent does: keys AAOIFI, DJIM, FTSE, MSCI, SP, each
// with verdict, is_compliant, status, disposition (the lower-case verdict), verified and reason.
func checkByMethodology(t *testing.T, where string, r map[string]any) {
	t.Helper()
	by, _ := field(t, where, r, "by_methodology", "object").(map[string]any)
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != strings.Join(methodologyKeys, ",") {
		t.Errorf("%s: by_methodology keys %v, want %v", where, keys, methodologyKeys)
	}
	for _, k := range keys {
		e, _ := by[k].(map[string]any)
		w := where + " by_methodology." + k
		v, _ := field(t, w, e, "verdict", "string").(string)
		if !lowerVerdicts[v] || field(t, w, e, "status", "string") != v || field(t, w, e, "disposition", "string") != v {
			t.Errorf("%s: verdict %q status %v disposition %v", w, v, e["status"], e["disposition"])
		}
		if want := map[string]any{"compliant": true, "non_compliant": false, "questionable": false, "insufficient_data": nil}[v]; field(t, w, e, "is_compliant", "boolean", "null") != want {
			t.Errorf("%s: is_compliant %v for %s", w, e["is_compliant"], v)
		}
		if field(t, w, e, "verified", "boolean") != true {
			t.Errorf("%s: verified %v", w, e["verified"])
		}
		field(t, w, e, "reason", "string")
	}
}

// checkJPM checks the known values of JPMorgan: a bank, non-compliant on its business.
func checkJPM(t *testing.T, where string, r map[string]any) {
	t.Helper()
	if r["symbol"] != "JPM" || r["shariah_compliance_status"] != "non_compliant" || r["business_screen_pass"] != false ||
		r["sector"] != "Financials" || r["industry"] != "Diversified Banks" || r["market_cap_currency"] != "USD" {
		t.Errorf("%s: JPM %v %v %v %v %v", where, r["shariah_compliance_status"], r["business_screen_pass"], r["sector"], r["industry"], r["market_cap_currency"])
	}
	if reason, _ := r["business_screen_reason"].(string); reason != "conventional finance (SIC 6021)" {
		t.Errorf("%s: business_screen_reason %q", where, reason)
	}
	if mc, _ := r["market_cap"].(float64); mc < 1e11 {
		t.Errorf("%s: market_cap %v", where, r["market_cap"])
	}
	sp, _ := r["by_methodology"].(map[string]any)["SP"].(map[string]any)
	if sp["verdict"] != "non_compliant" || sp["is_compliant"] != false || !strings.Contains(sp["reason"].(string), "conventional finance") {
		t.Errorf("%s: by_methodology.SP %v", where, sp)
	}
	// A bank's purification rate is large: in percent it is well above 1.
	if p, _ := r["purification_rate"].(float64); p <= 1 {
		t.Errorf("%s: JPM purification_rate %v (percent)", where, r["purification_rate"])
	}
}

func TestContractScreeningResult(t *testing.T) {
	t.Parallel()
	e := setup(t, options{worker: true})
	k := key(e.newKey(t, account.PlanEnterprise))
	start := time.Now().UTC().Add(-time.Second)

	// GET and POST /api/screen/{symbol}
	var nvdaPct float64
	for _, method := range []string{"GET", "POST"} {
		for _, sym := range []string{"JPM", "NVDA", "MSFT"} {
			r := e.do(t, method, "/api/screen/"+sym, nil, k)
			if r.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", method, sym, r.StatusCode, r.body)
			}
			m := checkScreening(t, method+" /api/screen/"+sym, r.json(t))
			switch sym {
			case "JPM":
				checkJPM(t, method+" /api/screen/JPM", m)
			case "NVDA":
				// compliant, clean business (the reason says what was read), every ratio passes; the
				// purification rate in percent
				cls, _ := m["business_classification"].(map[string]any)
				if reason, _ := field(t, "NVDA", m, "business_screen_reason", "string").(string); cls["text"] == "" || reason != "no prohibited activity found in "+cls["text"].(string) {
					t.Errorf("NVDA: business_screen_reason %q, classification %v", reason, cls)
				}
				if m["shariah_compliance_status"] != "compliant" || m["business_screen_pass"] != true ||
					m["financial_screen_pass"] != true || m["sector"] != "Information Technology" {
					t.Errorf("NVDA: %v %v %v %v", m["shariah_compliance_status"], m["business_screen_pass"], m["business_screen_reason"], m["financial_screen_pass"])
				}
				nvdaPct, _ = m["purification_rate"].(float64)
				frac, _ := m["purification_rate_fraction"].(float64)
				rb := m["revenue_breakdown"].(map[string]any)
				if want := rb["impure_ratio"].(float64) * 100; math.Abs(nvdaPct-want) > 1e-4 || math.Abs(frac-rb["impure_ratio"].(float64)) > 1e-6 {
					t.Errorf("NVDA purification_rate %v%%, fraction %v; impure ratio %v", nvdaPct, frac, rb["impure_ratio"])
				}
				// interest_income_to_revenue_ratio is the breakdown's interest / revenue
				if ii, tr := rb["interest_income"].(float64), rb["total_revenue"].(float64); math.Abs(m["interest_income_to_revenue_ratio"].(float64)-ii/tr) > 1e-8 {
					t.Errorf("NVDA interest_income_to_revenue_ratio %v, want %v", m["interest_income_to_revenue_ratio"], ii/tr)
				}
			}
		}
	}
	// methodology=sp: the overall verdict is S&P's, and the derived fields follow it
	sp := checkScreening(t, "screen?methodology=sp", e.do(t, "GET", "/api/screen/JPM?methodology=sp", nil, k).json(t))
	if sp["methodology"] != "S&P" || sp["shariah_compliance_status"] != "non_compliant" || sp["business_screen_reason"] != "conventional finance (SIC 6021)" {
		t.Errorf("methodology=sp: %v %v %v", sp["methodology"], sp["shariah_compliance_status"], sp["business_screen_reason"])
	}

	// GET /api/result/{symbol}
	checkJPM(t, "/api/result/JPM", checkScreening(t, "/api/result/JPM", e.do(t, "GET", "/api/result/JPM", nil, k).json(t)))

	// GET /api/results and /api/results/updates
	for _, path := range []string{"/api/results", "/api/results/updates?since=" + start.Format(time.RFC3339)} {
		list, _ := e.do(t, "GET", path, nil, k).json2(t).([]any)
		if len(list) < 3 {
			t.Fatalf("%s: %d results", path, len(list))
		}
		for _, it := range list {
			m := checkScreening(t, path, it.(map[string]any))
			if m["symbol"] == "JPM" {
				checkJPM(t, path, m)
			}
		}
	}

	// POST /api/compare: each item's screening
	cmp := e.do(t, "POST", "/api/compare", map[string]any{"symbols": []string{"JPM", "NVDA"}}, k).json(t)
	for _, it := range cmp["items"].([]any) {
		it := it.(map[string]any)
		m := checkScreening(t, "compare "+it["symbol"].(string), it["screening"].(map[string]any))
		if it["symbol"] == "JPM" {
			checkJPM(t, "compare", m)
		}
	}

	// GET /api/reports/screening/{symbol}: the result inside, and the purification text in percent
	rep := e.do(t, "GET", "/api/reports/screening/NVDA", nil, k).json(t)
	checkScreening(t, "report", rep["result"].(map[string]any))
	for _, s := range rep["sections"].([]any) {
		s := s.(map[string]any)
		if s["title"] == "Purification" && !strings.Contains(s["body"].(string), "%") {
			t.Errorf("report purification section: %v", s["body"])
		}
	}

	// A bulk run: the compact rows and the JSON export's full results
	putIndex(t, e, "CONTRACT3", "JPM", "NVDA", "MSFT")
	run := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "CONTRACT3"}, k).json(t)
	id := run["run_id"].(string)
	waitRun(t, e, k, id)
	rows := e.do(t, "GET", "/api/screen-bulk/"+id+"/results", nil, k).json(t)["results"].([]any)
	bulkRows := map[string]map[string]any{}
	if len(rows) != 3 {
		t.Fatalf("bulk rows: %v", rows)
	}
	for _, row := range rows {
		row := row.(map[string]any)
		w := "bulk row " + row["symbol"].(string)
		st, _ := field(t, w, row, "status", "string").(string)
		if field(t, w, row, "shariah_compliance_status", "string") != strings.ToLower(st) {
			t.Errorf("%s: shariah_compliance_status %v for %s", w, row["shariah_compliance_status"], st)
		}
		checkPercent(t, w, row)
		field(t, w, row, "sector", "string")
		field(t, w, row, "market_cap", "number", "null")
		field(t, w, row, "market_cap_currency", "string", "null")
		field(t, w, row, "industry", "string", "null")
		field(t, w, row, "business_screen_pass", "boolean", "null")
		field(t, w, row, "business_screen_reason", "string", "null")
		field(t, w, row, "financial_screen_pass", "boolean", "null")
		for _, f := range bulkRatioFields {
			field(t, w, row, f, "number", "null")
		}
		if ab, ok := row["abstain_reason"]; (st == "INSUFFICIENT_DATA") != ok {
			t.Errorf("%s: abstain_reason %v for %s", w, ab, st)
		} else if ok {
			field(t, w, row, "abstain_reason", "string")
		}
		checkByMethodology(t, w, row)
		if row["symbol"] == "JPM" && (row["shariah_compliance_status"] != "non_compliant" || row["purification_rate"].(float64) <= 1 ||
			row["business_screen_pass"] != false || row["business_screen_reason"] != "conventional finance (SIC 6021)" || row["industry"] != "Diversified Banks") {
			t.Errorf("bulk JPM: %v", row)
		}
		bulkRows[row["symbol"].(string)] = row
	}
	spRows := e.do(t, "GET", "/api/screen-bulk/"+id+"/results?methodology=sp", nil, k).json(t)["results"].([]any)
	for _, row := range spRows {
		row := row.(map[string]any)
		if row["symbol"] == "JPM" && (row["status"] != "NON_COMPLIANT" || row["shariah_compliance_status"] != "non_compliant" ||
			row["business_screen_pass"] != false || row["business_screen_reason"] != "conventional finance (SIC 6021)") {
			t.Errorf("bulk methodology=sp JPM: %v", row)
		}
		checkByMethodology(t, "bulk methodology=sp row", row)
	}
	exp := e.do(t, "GET", "/api/screen-bulk/"+id+"/export/json", nil, k).json(t)
	for _, it := range exp["results"].([]any) {
		it := it.(map[string]any)
		m := checkScreening(t, "bulk export "+it["symbol"].(string), it["result"].(map[string]any))
		// The row carries the full result's client fields, with the same values.
		row := bulkRows[it["symbol"].(string)]
		for _, f := range append([]string{"industry", "business_screen_pass", "business_screen_reason", "financial_screen_pass",
			"shariah_compliance_status", "purification_rate", "purification_rate_fraction", "abstain_reason"}, bulkRatioFields...) {
			if a, b := string(mustJSON(row[f])), string(mustJSON(m[f])); a != b {
				t.Errorf("bulk row %v: %s %s, result %s", it["symbol"], f, a, b)
			}
		}
		if a, b := string(mustJSON(row["by_methodology"])), string(mustJSON(m["by_methodology"])); a != b {
			t.Errorf("bulk row %v: by_methodology differs from the result's", it["symbol"])
		}
		if it["symbol"] == "JPM" {
			checkJPM(t, "bulk export", m)
		}
	}

	// The MCP screen tool returns the same result.
	c, err := client.NewInProcessClient(mcp.New(app.MCPDeps(e.appEnv, e.svc)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	mcptest.Connect(t, c)
	for _, tool := range []string{"screen_stock", "get_screening_result"} {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, map[string]any{"symbol": "JPM"}
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		var m map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		checkJPM(t, "mcp "+tool, checkScreening(t, "mcp "+tool, m))
	}
	if nvdaPct <= 0 {
		t.Errorf("NVDA purification_rate %v", nvdaPct)
	}
}

// TestContractInsufficientData: a company without fundamentals has no verdict; abstain_reason says why
// and data_quality.methodologies_insufficient names every methodology.
func TestContractInsufficientData(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	ctx := context.Background()
	if err := e.ref.PutAssets(ctx, []shariah.Asset{{Symbol: "NOFUND", Name: "No Fundamentals Corp", Type: shariah.Equity,
		Sector: "Industrials", Industry: "Machinery", Currency: "USD"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	var r response
	deadline := time.Now().Add(5 * time.Second)
	for r = e.do(t, "GET", "/api/screen/NOFUND", nil, k); r.StatusCode != 200; r = e.do(t, "GET", "/api/screen/NOFUND", nil, k) {
		if time.Now().After(deadline) {
			t.Fatalf("NOFUND never became screenable: %d %s", r.StatusCode, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	m := checkScreening(t, "NOFUND", r.json(t))
	ab, _ := m["abstain_reason"].(string)
	if m["shariah_compliance_status"] != "insufficient_data" || !strings.Contains(ab, "0 of 5 methodologies") || !strings.Contains(ab, "S&P") ||
		!strings.Contains(ab, "total assets") {
		t.Errorf("abstain_reason %q", ab)
	}
	t.Logf("abstain_reason: %s", ab)
	if mi := m["data_quality"].(map[string]any)["methodologies_insufficient"].([]any); len(mi) != 5 {
		t.Errorf("methodologies_insufficient %v", mi)
	}
	if m["purification_rate"] != nil || m["market_cap"] != nil || m["financial_screen_pass"] != nil || m["business_screen_pass"] != true {
		t.Errorf("NOFUND: purification %v market cap %v financial %v business %v", m["purification_rate"], m["market_cap"], m["financial_screen_pass"], m["business_screen_pass"])
	}
}

// TestContractStoredBeforeTheFields: a result stored in the earlier format (by_methodology keyed S&P,
// purification_rate a fraction, no new fields) is served in the current one.
func TestContractStoredBeforeTheFields(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	cur := e.do(t, "GET", "/api/screen/JPM", nil, k).json(t)
	ctx := context.Background()
	rkey := "shr:result:{JPM}:spec"
	b, err := e.rc.Do(ctx, e.rc.B().Get().Key(rkey).Build()).AsBytes()
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	old := stored["result"].(map[string]any)
	by := old["by_methodology"].(map[string]any)
	by["S&P"] = by["SP"]
	delete(by, "SP")
	for _, e := range by {
		for _, f := range []string{"is_compliant", "status", "disposition"} {
			delete(e.(map[string]any), f)
		}
	}
	old["purification_rate"] = old["purification_rate_fraction"]
	for _, f := range []string{"purification_rate_fraction", "shariah_compliance_status", "business_screen_pass", "business_screen_reason",
		"financial_screen_pass", "abstain_reason"} {
		delete(old, f)
	}
	delete(old["data_quality"].(map[string]any), "methodologies_insufficient")
	b, _ = json.Marshal(stored)
	if err := e.rc.Do(ctx, e.rc.B().Set().Key(rkey).Value(string(b)).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	m := checkScreening(t, "stored before", e.do(t, "GET", "/api/result/JPM", nil, k).json(t))
	checkJPM(t, "stored before", m)
	if m["purification_rate"] != cur["purification_rate"] || m["purification_rate_fraction"] != cur["purification_rate_fraction"] {
		t.Errorf("stored before: purification %v / %v, want %v / %v", m["purification_rate"], m["purification_rate_fraction"], cur["purification_rate"], cur["purification_rate_fraction"])
	}
}
