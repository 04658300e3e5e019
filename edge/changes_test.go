package edge_test

import (
	"context"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/screening"
)

// raiseDebt sets the total debt of the period each symbol's screening stands on (screening.PeriodsFor:
// the latest, the fiscal year over its fourth quarter) to ten times its total assets and bumps the
// data version (the next screening computes afresh).
func raiseDebt(t testing.TB, e *env, syms ...string) {
	t.Helper()
	ctx := context.Background()
	for _, sym := range syms {
		fs, err := e.ref.Fundamentals(ctx, sym)
		if err != nil || len(fs) == 0 {
			t.Fatal(sym, err)
		}
		last := *screening.PeriodsFor(fs, nil).Screened
		d := last.Facts[shariah.TotalAssets]
		d.Value = shariah.NewNumber(d.Value.Decimal.Shift(1))
		last.Facts[shariah.TotalDebt] = d
		if err := e.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{sym: {last}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)
}

// GET /api/changes serves the changes the screenings recorded, in order, paged by its cursor, filtered,
// at the list price (2 tokens); bad parameters are 422 naming the field and a cursor before what the
// log keeps is 410 CURSOR_EXPIRED. Every answer is checked against openapi.json (do).
func TestChangeFeedRoute(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	for _, sym := range []string{"MSFT", "GOOGL"} {
		if r := e.do(t, "GET", "/api/screen/"+sym, nil, k); r.StatusCode != 200 || r.json(t)["compliance_status"] == "NON_COMPLIANT" {
			t.Fatalf("screen %s: %d %s", sym, r.StatusCode, r.body)
		}
	}
	raiseDebt(t, e, "MSFT", "GOOGL")
	for _, sym := range []string{"MSFT", "GOOGL"} {
		if r := e.do(t, "GET", "/api/screen/"+sym, nil, k); r.StatusCode != 200 || r.json(t)["compliance_status"] != "NON_COMPLIANT" {
			t.Fatalf("rescreen %s: %d %s", sym, r.StatusCode, r.body)
		}
	}
	r := e.do(t, "GET", "/api/changes?limit=1", nil, k)
	if r.StatusCode != 200 || r.Header.Get("X-Tokens-Charged") != "2" {
		t.Fatalf("changes: %d (%s tokens) %s", r.StatusCode, r.Header.Get("X-Tokens-Charged"), r.body)
	}
	m := r.json(t)
	cs := m["changes"].([]any)
	first := cs[0].(map[string]any)
	if len(cs) != 1 || first["symbol"] != "MSFT" || m["has_more"] != true || m["next_cursor"] != first["id"] ||
		first["after"].(map[string]any)["compliance_status"] != "NON_COMPLIANT" {
		t.Fatalf("first page: %s", r.body)
	}
	r = e.do(t, "GET", "/api/changes?since="+first["id"].(string)+"&symbols=googl,AAPL&index=DJIA", nil, k)
	m = r.json(t)
	cs = m["changes"].([]any)
	if r.StatusCode != 200 || len(cs) != 1 || cs[0].(map[string]any)["symbol"] != "GOOGL" || m["has_more"] != false {
		t.Fatalf("second page: %d %s", r.StatusCode, r.body)
	}
	for _, c := range []struct{ query, field string }{
		{"since=yesterday", "since"}, {"limit=0", "limit"}, {"limit=501", "limit"}, {"limit=x", "limit"},
		{"symbols=AAPL,bad%20symbol!", "symbols"}, {"index=NOPE100", "index"},
		{"watchlist=0190a0a0-0000-7000-8000-000000000000", "watchlist"},
	} {
		r := e.do(t, "GET", "/api/changes?"+c.query, nil, k)
		if r.StatusCode != 422 || r.errCode(t) != shariah.EVALIDATION || !hasLoc(t, r, c.field) || r.Header.Get("X-Tokens-Charged") != "0" {
			t.Errorf("%s: %d (%s tokens) %s", c.query, r.StatusCode, r.Header.Get("X-Tokens-Charged"), r.body)
		}
	}
	// The retention dropped changes after the first one's id (as change_add.lua notes it).
	if err := e.rc.Do(context.Background(), e.rc.B().Set().Key("shr:changes:{changes}:trimmed").Value(cs[0].(map[string]any)["id"].(string)).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	r = e.do(t, "GET", "/api/changes?since="+first["id"].(string), nil, k)
	if r.StatusCode != 410 || r.errCode(t) != shariah.ECURSOREXPIRED || r.json(t)["detail"].(map[string]any)["oldest_cursor"] != cs[0].(map[string]any)["id"] {
		t.Fatalf("expired cursor: %d %s", r.StatusCode, r.body)
	}
}

// hasLoc reports whether a 422's errors name the query field.
func hasLoc(t *testing.T, r response, field string) bool {
	t.Helper()
	for _, e := range r.json(t)["detail"].(map[string]any)["errors"].([]any) {
		loc := e.(map[string]any)["loc"].([]any)
		if len(loc) >= 2 && loc[0] == "query" && loc[1] == field {
			return true
		}
	}
	return false
}

// A nightly-style bulk run on the workers after two companies' debt rose records exactly their two
// changes, caused by the run; a forced rerun with nothing changed records none.
func TestBulkRescreenRecordsTheChanges(t *testing.T) {
	t.Parallel()
	e := setup(t, options{worker: true})
	k := key(e.newKey(t, account.PlanEnterprise))
	putIndex(t, e, "NIGHT", "MSFT", "GOOGL", "NVDA", "KO")
	run := func(force bool) string {
		t.Helper()
		r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "NIGHT", "force_refresh": force}, k)
		if r.StatusCode != 202 {
			t.Fatalf("start: %d %s", r.StatusCode, r.body)
		}
		id := r.json(t)["run_id"].(string)
		if st := waitRun(t, e, k, id); st["status"] != "completed" || st["errors"] != 0.0 {
			t.Fatalf("run: %v", st)
		}
		return id
	}
	run(false)
	raiseDebt(t, e, "MSFT", "GOOGL")
	second := run(false)
	r := e.do(t, "GET", "/api/changes?index=NIGHT", nil, k)
	cs := r.json(t)["changes"].([]any)
	if r.StatusCode != 200 || len(cs) != 2 {
		t.Fatalf("changes after the rescreen: %d %s", r.StatusCode, r.body)
	}
	got := map[string]bool{}
	for _, c := range cs {
		c := c.(map[string]any)
		cause, after := c["cause"].(map[string]any), c["after"].(map[string]any)
		got[c["symbol"].(string)] = true
		if cause["kind"] != "bulk_run" || cause["run_id"] != second || after["compliance_status"] != "NON_COMPLIANT" {
			t.Errorf("change: %v", c)
		}
	}
	if !got["MSFT"] || !got["GOOGL"] {
		t.Fatalf("changed symbols: %v", got)
	}
	at := e.do(t, "GET", "/api/result/MSFT", nil, k).json(t)["screened_at"]
	run(true)
	if again := e.do(t, "GET", "/api/result/MSFT", nil, k).json(t)["screened_at"]; again == at {
		t.Fatalf("the forced rerun did not rewrite MSFT's result (screened_at %v)", at)
	}
	if cs := e.do(t, "GET", "/api/changes?index=NIGHT", nil, k).json(t)["changes"].([]any); len(cs) != 2 {
		t.Fatalf("a forced rerun with nothing changed recorded %d more", len(cs)-2)
	}
}
