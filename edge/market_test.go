package edge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	sredis "github.com/shariah-screen/shariah/redis"
)

func TestRecordQuoteAndCaching(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "GET", "/api/database/stock/%20msft%20", nil, k)
	rec := r.json(t)
	if r.StatusCode != 200 || rec["symbol"] != "MSFT" || rec["sector"] != "Information Technology" {
		t.Fatalf("record: %d %s", r.StatusCode, r.body)
	}
	dq := rec["data_quality"].(map[string]any)
	if fmt.Sprint(dq["sources"]) != "[illustrative]" || dq["note"] == nil {
		t.Fatalf("illustrative fundamentals not labelled: %v", dq)
	}
	facts := rec["fundamentals"].(map[string]any)["facts"].(map[string]any)
	for _, f := range shariah.Fields {
		if _, ok := facts[string(f)]; !ok {
			t.Errorf("default-pack equity lacks %s: every listed equity must be screenable offline", f)
		}
	}
	q := e.do(t, "GET", "/api/quote/AAPL", nil, k)
	qb := q.json(t)
	etag := q.Header.Get("ETag")
	if q.StatusCode != 200 || qb["source"] != "illustrative" || qb["as_of"] != "2026-10-30" || etag == "" ||
		!strings.HasPrefix(q.Header.Get("Cache-Control"), "private, max-age=") || q.Header.Get("X-Tokens-Charged") != "2" {
		t.Fatalf("quote: %d %v %s", q.StatusCode, q.Header, q.body)
	}
	// market cap = price x shares, exactly
	if qb["market_cap"].(float64) != qb["price"].(float64)*qb["shares_outstanding"].(float64) {
		t.Fatalf("market cap %v != %v x %v", qb["market_cap"], qb["price"], qb["shares_outstanding"])
	}
	nm := e.do(t, "GET", "/api/quote/AAPL", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": etag})
	if nm.StatusCode != 304 || len(nm.body) != 0 || nm.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("revalidation: %d %q charged %s", nm.StatusCode, nm.body, nm.Header.Get("X-Tokens-Charged"))
	}
	if r := e.do(t, "GET", "/api/quote/AAPL", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": `"stale"`}); r.StatusCode != 200 {
		t.Fatalf("stale etag: %d", r.StatusCode)
	}
	// canonical forms resolve on path routes too
	if r := e.do(t, "GET", "/api/quote/brk.b", nil, k); r.StatusCode != 200 || r.json(t)["symbol"] != "BRK-B" {
		t.Fatalf("BRK.B: %d %s", r.StatusCode, r.body)
	}
	for path, want := range map[string]int{
		"/api/quote/ZZZZZZ":                     404,
		"/api/database/stock/NOPE":              404,
		"/api/asset/NOPE/full":                  404,
		"/api/quote/" + strings.Repeat("A", 30): 422,
		"/api/quote/AA%24PL":                    422,
		"/api/database/stock/%3Cscript%3E":      422,
	} {
		if r := e.do(t, "GET", path, nil, k); r.StatusCode != want {
			t.Errorf("%s: %d, want %d (%s)", path, r.StatusCode, want, r.body)
		}
	}
	st := e.do(t, "GET", "/api/database/stats", nil, k).json(t)
	if st["equities"] != 33.0 || st["etfs"] != 5.0 || st["funds"] != 3.0 || st["indices"] != 9.0 || st["countries"] != 11.0 {
		t.Fatalf("stats %v", st)
	}
	// Every default company stands on illustrative fundamentals; a filing for one moves it to filed.
	if fb := st["fundamentals_by_source"].(map[string]any); fb["filed"] != 0.0 || fb["illustrative"] != 33.0 || fb["no_fundamentals"] != 0.0 {
		t.Fatalf("fundamentals by source %v", fb)
	}
	filed := shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(1000)), Source: shariah.SourceFiling, Ref: "0000000000-26-000001"}
	if err := e.ref.PutFundamentals(context.Background(), map[string][]shariah.Fundamentals{"MSFT": {{Symbol: "MSFT", PeriodEnd: "2026-06-30", Period: "FY",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: filed}}}}); err != nil {
		t.Fatal(err)
	}
	st = e.do(t, "GET", "/api/database/stats", nil, k).json(t)
	if fb := st["fundamentals_by_source"].(map[string]any); fb["filed"] != 1.0 || fb["illustrative"] != 32.0 || fb["no_fundamentals"] != 0.0 {
		t.Fatalf("fundamentals by source after a filing %v", fb)
	}
}

func TestBatchQuotes(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "POST", "/api/quotes/batch", map[string]any{"symbols": []string{"aapl", " MSFT ", "NOPE", "BRK.B", "SPUS"}}, k)
	m := r.json(t)
	if r.StatusCode != 200 || m["AAPL"] == nil || m["MSFT"] == nil || m["NOPE"] != nil || m["BRK.B"] == nil || m["SPUS"] == nil || len(m) != 5 {
		t.Fatalf("batch: %d %s", r.StatusCode, r.body)
	}
	if _, present := m["NOPE"]; !present {
		t.Fatal("unknown symbol must map to null, not be absent")
	}
	if r.Header.Get("X-Tokens-Charged") != "10" {
		t.Fatalf("batch of 5 charged %s, want 2 per symbol", r.Header.Get("X-Tokens-Charged"))
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = "AAPL"
	}
	for _, body := range []any{map[string]any{"symbols": many}, map[string]any{"symbols": []string{}}, map[string]any{},
		map[string]any{"symbols": "AAPL"}, map[string]any{"symbols": []any{1, 2}}} {
		if r := e.do(t, "POST", "/api/quotes/batch", body, k); r.StatusCode != 422 || r.Header.Get("X-Tokens-Charged") != "0" {
			t.Errorf("%v: %d charged %s", body, r.StatusCode, r.Header.Get("X-Tokens-Charged"))
		}
	}
	if r := e.do(t, "POST", "/api/quotes/batch", `{"symbols": [`, k); r.StatusCode != 400 {
		t.Errorf("broken JSON: %d", r.StatusCode)
	}
	if r := e.do(t, "POST", "/api/quotes/batch", "", k); r.StatusCode != 422 {
		t.Errorf("empty body: %d", r.StatusCode)
	}
}

func TestOHLC(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	pts := e.do(t, "GET", "/api/ohlc/AAPL?period=5d", nil, k).json2(t).([]any)
	if len(pts) != 5 || pts[4].(map[string]any)["date"] != "2026-10-30" || pts[0].(map[string]any)["source"] != "illustrative" {
		t.Fatalf("5d: %v", pts)
	}
	daily := e.do(t, "GET", "/api/ohlc/AAPL?period=1mo", nil, k).json2(t).([]any)
	weekly := e.do(t, "GET", "/api/ohlc/AAPL?period=1mo&interval=1wk", nil, k).json2(t).([]any)
	if len(daily) < 20 || len(weekly) < 4 || len(weekly) > 6 {
		t.Fatalf("1mo daily %d, weekly %d", len(daily), len(weekly))
	}
	// a weekly candle closes where its last daily candle closes
	lastW, lastD := weekly[len(weekly)-1].(map[string]any), daily[len(daily)-1].(map[string]any)
	if lastW["close"] != lastD["close"] || lastW["date"] != lastD["date"] {
		t.Fatalf("weekly %v vs daily %v", lastW, lastD)
	}
	monthly := e.do(t, "GET", "/api/ohlc/AAPL?period=max&interval=1mo", nil, k).json2(t).([]any)
	if len(monthly) != 40 { // 2023-07 .. 2026-10
		t.Fatalf("monthly candles: %d, want 40", len(monthly))
	}
	if monthly[39].(map[string]any)["close"] != lastD["close"] {
		t.Fatal("the monthly close is not the month's last close")
	}
	for _, q := range []string{"period=7d", "interval=2d", "interval=1m", "interval=1h", "period=1y&interval=15m"} {
		r := e.do(t, "GET", "/api/ohlc/AAPL?"+q, nil, k)
		if r.StatusCode != 422 || r.errCode(t) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d", q, r.StatusCode)
		}
	}
	if r := e.do(t, "GET", "/api/ohlc/NOPE", nil, k); r.StatusCode != 404 {
		t.Errorf("unknown: %d", r.StatusCode)
	}
}

func TestTrendingFullFXAndCanonical(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	tr := e.do(t, "GET", "/api/trending?limit=5", nil, k).json2(t).([]any)
	if len(tr) != 5 {
		t.Fatalf("trending: %v", tr)
	}
	prev := 1e18
	for _, it := range tr {
		var score float64
		fmt.Sscan(it.(map[string]any)["score"].(string), &score)
		if score > prev {
			t.Fatalf("trending not ordered by score: %v", tr)
		}
		prev = score
	}
	full := e.do(t, "GET", "/api/asset/TSLA/full", nil, k).json(t)
	if full["record"].(map[string]any)["name"] != "Tesla Inc." || full["quote"] == nil || full["screening"] != nil {
		t.Fatalf("full: %v", full)
	}
	idx := e.do(t, "GET", "/api/asset/%5EGSPC/full", nil, k).json(t)
	if idx["record"].(map[string]any)["asset_type"] != "index" {
		t.Fatalf("index full view: %v", idx)
	}
	// FX: the default pack has none; USD to itself is defined.
	fx := e.do(t, "GET", "/api/fx?base=usd&quote=USD", nil, k)
	if fx.StatusCode != 200 {
		t.Fatalf("fx: %d %s", fx.StatusCode, fx.body)
	}
	if r := e.do(t, "GET", "/api/fx?base=EURO", nil, k); r.StatusCode != 422 {
		t.Fatalf("bad base: %d", r.StatusCode)
	}
	if r := e.do(t, "GET", "/api/fx?quote=XXX", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown currency: %d", r.StatusCode)
	}
	can := e.do(t, "POST", "/api/symbols/canonical", map[string]any{"symbols": []string{"aapl", "AAPL.US", "NASDAQ:MSFT", "BRK.B", "BRK-B", "0700.HK", "700.hk", "US0378331005", "US0378331006", "nope"}}, k).json(t)
	want := []string{"AAPL", "AAPL", "MSFT", "BRK-B", "BRK-B", "0700.HK", "0700.HK", "AAPL", "", ""}
	for i, r := range can["results"].([]any) {
		if got := r.(map[string]any)["symbol"]; got != want[i] {
			t.Errorf("canonical %d: %v, want %q", i, r, want[i])
		}
	}
	one := e.do(t, "POST", "/api/symbols/canonical", map[string]any{"symbol": "tsla"}, k).json(t)
	if one["results"].([]any)[0].(map[string]any)["symbol"] != "TSLA" {
		t.Fatalf("single: %v", one)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"symbol": 5}, map[string]any{"symbols": []string{strings.Repeat("x", 41)}}} {
		if r := e.do(t, "POST", "/api/symbols/canonical", body, k); r.StatusCode != 422 {
			t.Errorf("%v: %d", body, r.StatusCode)
		}
	}
}

// TestQuoteRequestsAreCountedForTheRefresh checks that single and batch quotes count their symbols
// (canonical form) for the refresh of the most requested.
func TestQuoteRequestsAreCountedForTheRefresh(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	for _, p := range []string{"/api/quote/MSFT", "/api/quote/msft", "/api/quote/BRK.B", "/api/quote/AAPL"} {
		if r := e.do(t, "GET", p, nil, k); r.StatusCode != 200 {
			t.Fatalf("%s: %d", p, r.StatusCode)
		}
	}
	if r := e.do(t, "POST", "/api/quotes/batch", map[string]any{"symbols": []string{"brk-b", "MSFT", "NOPE123"}}, k); r.StatusCode != 200 {
		t.Fatalf("batch: %d %s", r.StatusCode, r.body)
	}
	pop := sredis.NewPopularityStore(e.rc)
	now := time.Now()
	if err := e.popular.Flush(context.Background(), pop, now); err != nil {
		t.Fatal(err)
	}
	top, err := pop.MostRequested(context.Background(), 10, 1, now)
	if err != nil || len(top) != 3 || top[0] != "MSFT" || top[1] != "BRK-B" || top[2] != "AAPL" {
		t.Fatalf("most requested: %v %v", top, err)
	}
}
