package edge_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
)

// waitRun polls a run's status until it is finished.
func waitRun(t *testing.T, e *env, k hdr, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.do(t, "GET", "/api/screen-bulk/status?run_id="+id, nil, k).json(t)
		switch r["status"] {
		case "completed", "cancelled", "failed":
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %v", id, r["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// putIndex defines a small index in the loaded data (as a data pack's indices.csv would).
func putIndex(t *testing.T, e *env, name string, syms ...string) {
	t.Helper()
	ctx := context.Background()
	if err := e.ref.PutIndex(ctx, catalog.IndexInfo{Name: name, Description: "test index " + name, Country: "Test", Symbols: syms, Source: "test-pack"}); err != nil {
		t.Fatal(err)
	}
}

func TestBulkRunLifecycleFiltersAndExports(t *testing.T) {
	t.Parallel()
	e := setup(t, options{worker: true})
	k := key(e.newKey(t, account.PlanEnterprise))
	// A hand-made index of six: two prohibited businesses, an ETF that cannot be screened as a stock.
	putIndex(t, e, "HAND6", "MSFT", "JPM", "MO", "NVDA", "TSLA", "SPUS")
	ix := e.do(t, "GET", "/api/screen-bulk/indices", nil, k).json(t)["indices"].([]any)
	found := false
	for _, it := range ix {
		it := it.(map[string]any)
		found = found || (it["index_name"] == "HAND6" && it["loaded_tickers"] == 6.0)
	}
	if len(ix) < 22 || !found {
		t.Fatalf("indices: %d, HAND6 listed: %v", len(ix), found)
	}
	start := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "hand6"}, k)
	sb := start.json(t)
	if start.StatusCode != 202 || sb["status"] != "queued" || sb["total"] != 6.0 || start.Header.Get("X-Tokens-Charged") != "50" {
		t.Fatalf("start: %d %s", start.StatusCode, start.body)
	}
	id := sb["run_id"].(string)
	run := waitRun(t, e, k, id)
	p := run["progress"].(map[string]any)
	if run["status"] != "completed" || p["percent"] != "100.00" || p["processed"] != 6.0 || run["errors"] != 1.0 || run["started_at"] == nil || run["finished_at"] == nil {
		t.Fatalf("finished run: %v", run)
	}
	// Independently screened statuses are the hand count for the filters.
	want := map[string]string{}
	for _, s := range []string{"MSFT", "JPM", "MO", "NVDA", "TSLA"} {
		want[s] = e.do(t, "GET", "/api/result/"+s, nil, k).json(t)["compliance_status"].(string)
	}
	if want["JPM"] != "NON_COMPLIANT" || want["MO"] != "NON_COMPLIANT" {
		t.Fatalf("hand count %v", want)
	}
	compliant := 0
	for _, st := range want {
		if st == "COMPLIANT" {
			compliant++
		}
	}
	res := e.do(t, "GET", "/api/screen-bulk/"+id+"/results?compliant=true", nil, k).json(t)
	if res["total"] != float64(compliant) {
		t.Fatalf("compliant=true: %v, want %d", res["total"], compliant)
	}
	errs := e.do(t, "GET", "/api/screen-bulk/"+id+"/results?has_error=true", nil, k).json(t)["results"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["symbol"] != "SPUS" {
		t.Fatalf("has_error: %v", errs)
	}
	page := e.do(t, "GET", "/api/screen-bulk/"+id+"/results?sort_by=symbol&sort_order=desc&page=2&page_size=2", nil, k).json(t)
	rows := page["results"].([]any)
	if page["total"] != 6.0 || len(rows) != 2 || rows[0].(map[string]any)["symbol"] != "NVDA" || rows[1].(map[string]any)["symbol"] != "MSFT" {
		t.Fatalf("page 2 desc: %v", rows)
	}
	fin := e.do(t, "GET", "/api/screen-bulk/"+id+"/results?sector=financials&methodology=aaoifi", nil, k).json(t)["results"].([]any)
	if len(fin) != 1 || fin[0].(map[string]any)["symbol"] != "JPM" || fin[0].(map[string]any)["status"] != "NON_COMPLIANT" {
		t.Fatalf("sector filter: %v", fin)
	}
	for _, q := range []string{"sort_by=colour", "sort_order=up", "page=0", "page_size=501", "compliant=maybe", "methodology=hanafi"} {
		if r := e.do(t, "GET", "/api/screen-bulk/"+id+"/results?"+q, nil, k); r.StatusCode != 422 {
			t.Errorf("%s: %d", q, r.StatusCode)
		}
	}
	sum := e.do(t, "GET", "/api/screen-bulk/"+id+"/summary", nil, k).json(t)["summary"].(map[string]any)
	overall := sum["overall"].(map[string]any)
	if overall["total"] != 6.0 || overall["errors"] != 1.0 || overall["compliant"] != float64(compliant) || len(sum["by_methodology"].(map[string]any)) != 5 {
		t.Fatalf("summary %v", sum)
	}
	// compliance_rate_pct is a number (percent of those with a verdict), overall and per methodology.
	tallies := map[string]any{"overall": overall}
	for m, tl := range sum["by_methodology"].(map[string]any) {
		tallies[m] = tl
	}
	for name, tl := range tallies {
		tl, _ := tl.(map[string]any)
		den := field(t, name, tl, "compliant", "number").(float64) + tl["non_compliant"].(float64) + tl["questionable"].(float64)
		rate, _ := field(t, name, tl, "compliance_rate_pct", "number").(float64)
		if want := 0.0; den > 0 && fmt.Sprintf("%.2f", rate) != fmt.Sprintf("%.2f", 100*tl["compliant"].(float64)/den) || den == 0 && rate != want {
			t.Errorf("%s compliance_rate_pct %v: %v", name, rate, tl)
		}
	}
	// The default universe is illustrative: the five screened companies say so, the error is not counted.
	if ds := sum["data_sources"].(map[string]any); ds["filed"] != 0.0 || ds["illustrative"] != 5.0 || ds["no_fundamentals"] != 0.0 {
		t.Fatalf("summary data sources %v", ds)
	}
	// exports
	csvResp := e.do(t, "GET", "/api/screen-bulk/"+id+"/export/csv", nil, k)
	rowsCSV, err := csv.NewReader(strings.NewReader(string(csvResp.body))).ReadAll()
	if err != nil || len(rowsCSV) != 7 || rowsCSV[0][0] != "symbol" || !strings.Contains(csvResp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("csv: %v %d rows", err, len(rowsCSV))
	}
	full := e.do(t, "GET", "/api/screen-bulk/"+id+"/export/json", nil, k).json(t)
	if len(full["results"].([]any)) != 6 || full["run"].(map[string]any)["run_id"] != id {
		t.Fatalf("json export: %v", full["run"])
	}
	// history and status without run_id
	runs := e.do(t, "GET", "/api/screen-bulk/runs?index_name=HAND6&status=completed", nil, k).json(t)
	if runs["total"] != 1.0 || runs["page_size"] != 20.0 {
		t.Fatalf("runs: %v", runs)
	}
	if cur := e.do(t, "GET", "/api/screen-bulk/status", nil, k).json(t); cur["run_id"] != id {
		t.Fatalf("current run: %v", cur["run_id"])
	}
	// cancel of a finished run is 400; delete removes everything
	if r := e.do(t, "POST", "/api/screen-bulk/"+id+"/cancel", nil, k); r.StatusCode != 400 {
		t.Fatalf("cancel finished: %d", r.StatusCode)
	}
	if r := e.do(t, "DELETE", "/api/screen-bulk/"+id, nil, k); r.StatusCode != 200 || r.json(t)["deleted"] != true {
		t.Fatalf("delete: %d", r.StatusCode)
	}
	for _, path := range []string{"/api/screen-bulk/status?run_id=" + id, "/api/screen-bulk/" + id + "/results", "/api/screen-bulk/" + id + "/summary", "/api/screen-bulk/" + id + "/export/json"} {
		if r := e.do(t, "GET", path, nil, k); r.StatusCode != 404 {
			t.Errorf("%s after delete: %d", path, r.StatusCode)
		}
	}
	if r := e.do(t, "DELETE", "/api/screen-bulk/"+id, nil, k); r.StatusCode != 404 {
		t.Errorf("second delete: %d", r.StatusCode)
	}
}

func TestBulkBadInput(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "FTSE250"}, k)
	if r.StatusCode != 400 || !strings.Contains(string(r.body), "SP500") || r.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("unknown index: %d %s", r.StatusCode, r.body)
	}
	for _, b := range []any{map[string]any{}, map[string]any{"index_name": "SP500", "limit": 0}, map[string]any{"index_name": "SP500", "limit": "ten"},
		map[string]any{"index_name": 500}, map[string]any{"index_name": "SP500", "force_refresh": "yes"}} {
		if r := e.do(t, "POST", "/api/screen-bulk", b, k); r.StatusCode != 422 {
			t.Errorf("%v: %d", b, r.StatusCode)
		}
	}
	for _, path := range []string{"/api/screen-bulk/status?run_id=nope", "/api/screen-bulk/nope/results", "/api/screen-bulk/compare?run_a=x&run_b=y"} {
		if r := e.do(t, "GET", path, nil, k); r.StatusCode != 404 {
			t.Errorf("%s: %d", path, r.StatusCode)
		}
	}
	if r := e.do(t, "GET", "/api/screen-bulk/compare?run_a=x", nil, k); r.StatusCode != 422 {
		t.Errorf("compare without run_b: %d", r.StatusCode)
	}
	if r := e.do(t, "GET", "/api/screen-bulk/status", nil, k); r.StatusCode != 404 {
		t.Errorf("status with no run ever: %d", r.StatusCode)
	}
	// A queued run (no worker here) can be cancelled; a second start of the same index meanwhile is 409.
	q := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "SP500", "limit": 3}, k).json(t)
	if r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "SP500"}, k); r.StatusCode != 409 {
		t.Fatalf("second run of an active index: %d", r.StatusCode)
	}
	c := e.do(t, "POST", "/api/screen-bulk/"+q["run_id"].(string)+"/cancel", nil, k).json(t)
	if c["run"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("cancel queued: %v", c)
	}
	if r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "SP500", "limit": 3}, k); r.StatusCode != 202 {
		t.Fatalf("index freed by the cancel: %d", r.StatusCode)
	}
}

// TestCancelMidRunKeepsWhatWasCollected runs a paced run and cancels it part-way.
func TestCancelMidRunKeepsWhatWasCollected(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	owner := e.newKey(t, account.PlanEnterprise)
	k := key(owner)
	e.bulk.Pause, e.bulk.Concurrency = 150*time.Millisecond, 1
	ctx := context.Background()
	r, err := e.bulk.StartRun(ctx, account.CallerOf(owner.Record), "SP500", 0, true, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.bulk.Execute(ctx, r.ID) }()
	deadline := time.Now().Add(20 * time.Second)
	for e.do(t, "GET", "/api/screen-bulk/status?run_id="+r.ID, nil, k).json(t)["processed"].(float64) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("run made no progress")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c := e.do(t, "POST", "/api/screen-bulk/"+r.ID+"/cancel", nil, k)
	at := c.json(t)["run"].(map[string]any)
	if c.StatusCode != 200 || at["status"] != "cancelled" {
		t.Fatalf("cancel: %d %v", c.StatusCode, at)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	final := e.do(t, "GET", "/api/screen-bulk/status?run_id="+r.ID, nil, k).json(t)
	got := e.do(t, "GET", "/api/screen-bulk/"+r.ID+"/results", nil, k).json(t)
	n := got["total"].(float64)
	if final["status"] != "cancelled" || n < 3 || n >= 13 || final["processed"].(float64) != n {
		t.Fatalf("after cancel: %v, %v results kept", final["status"], n)
	}
}

// TestRunComparisonAndStatusChanges: two runs with a known difference (a company's debt rises, the index
// drops one member and adds another) show in compare, the summary and /api/results/updates.
func TestRunComparisonAndStatusChanges(t *testing.T) {
	t.Parallel()
	e := setup(t, options{worker: true})
	k := key(e.newKey(t, account.PlanEnterprise))
	ctx := context.Background()
	putIndex(t, e, "DIFF", "MSFT", "KO", "TSLA")
	a := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "DIFF"}, k).json(t)["run_id"].(string)
	waitRun(t, e, k, a)
	if st := e.do(t, "GET", "/api/result/MSFT", nil, k).json(t)["compliance_status"]; st != "COMPLIANT" {
		t.Fatalf("MSFT before: %v", st)
	}
	// MSFT borrows heavily; the index swaps KO for NVDA.
	fs, _ := e.ref.Fundamentals(ctx, "MSFT")
	last := fs[len(fs)-1]
	last.Facts[shariah.TotalDebt] = shariah.Fact{Value: shariah.NewNumber(last.Facts[shariah.TotalAssets].Value.Decimal.Mul(decimal.RequireFromString("0.9"))), Source: shariah.SourceIllustrative, Ref: "test"}
	if err := e.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"MSFT": {last}}); err != nil {
		t.Fatal(err)
	}
	putIndex(t, e, "DIFF", "MSFT", "NVDA", "TSLA")
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	since := time.Now().UTC().Format(time.RFC3339Nano)
	e.awaitData(t)
	b := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "DIFF"}, k).json(t)["run_id"].(string)
	waitRun(t, e, k, b)
	cmp := e.do(t, "GET", "/api/screen-bulk/compare?run_a="+a+"&run_b="+b, nil, k).json(t)
	changed := cmp["changed"].([]any)
	if len(changed) != 1 || changed[0].(map[string]any)["symbol"] != "MSFT" || changed[0].(map[string]any)["to"] != "NON_COMPLIANT" ||
		strings.Join(toStrings(cmp["newly_non_compliant"]), ",") != "MSFT" || strings.Join(toStrings(cmp["added"]), ",") != "NVDA" ||
		strings.Join(toStrings(cmp["removed"]), ",") != "KO" {
		t.Fatalf("compare: %v", cmp)
	}
	// The change names the ratios that moved, the crossed ones first: MSFT's debt ratios rose past their
	// thresholds; nothing that did not move is listed.
	moved := changed[0].(map[string]any)["moved"].([]any)
	if len(moved) == 0 {
		t.Fatalf("no moved ratios: %v", changed[0])
	}
	first := moved[0].(map[string]any)
	if first["crossed"] != true || !strings.Contains(first["ratio"].(string), "debt") || first["from"].(float64) >= first["to"].(float64) ||
		first["threshold_bp"].(float64) <= 0 || first["methodology"] == "" {
		t.Fatalf("first moved ratio: %v", first)
	}
	for _, m := range moved {
		if m := m.(map[string]any); m["from"] == m["to"] {
			t.Fatalf("a ratio that did not move: %v", m)
		}
	}
	if sum := e.do(t, "GET", "/api/screen-bulk/"+b+"/summary", nil, k).json(t)["summary"].(map[string]any); sum["status_changes"] != 1.0 {
		t.Fatalf("status changes: %v", sum["status_changes"])
	}
	row := e.do(t, "GET", "/api/screen-bulk/"+b+"/results?status_changed=true&sort_by=symbol", nil, k).json(t)["results"].([]any)[0].(map[string]any)
	if row["symbol"] != "MSFT" || row["previous_status"] != "COMPLIANT" || row["status_changed"] != true {
		t.Fatalf("recorded change: %v", row)
	}
	ups := e.do(t, "GET", "/api/results/updates?since="+since+"&run_id="+b, nil, k).json2(t).([]any)
	seen := map[string]bool{}
	for _, u := range ups {
		seen[u.(map[string]any)["symbol"].(string)] = true
	}
	if !seen["MSFT"] {
		t.Fatalf("MSFT's new result not in updates of run b: %v", seen)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
