package analytics_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
)

// analyticsDay is the first day of the known rows.
var analyticsDay = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// seedAnalytics records a known set of requests through the writer (so through the materialized views):
//
//	key A (user uA, pro):  day 1 10:00-10:09  10 x GET /api/quote/{symbol}: 8 x 200 (2 tokens), 404, 500;
//	                                         latencies 1..10 ms
//	                       day 1 11:10-11:13  4 x POST /api/screen/{symbol} 200, 5 tokens, 100 ms; the
//	                                         last 2 beyond the allowance (5 tokens of overage each)
//	key B (user uB, free): day 2 09:00-09:02  3 x GET /api/quote/{symbol} 200, 2 tokens, 3 ms
//	                       day 2 09:30, 09:40 429 QUOTA_EXCEEDED; 09:50 429 RATE_LIMITED (0 tokens)
func seedAnalytics(t *testing.T, db *analytics.DB) {
	t.Helper()
	w, ctx := runningWriter(t, db, 1000)
	n := 0
	rec := func(key, user, plan, method, route string, status, tokens, overage int, lat time.Duration, at time.Time, code string) {
		n++
		w.Record(account.UsageEvent{RequestID: fmt.Sprintf("req-%03d", n), KeyID: "id-" + key, UserID: user, KeyPrefix: "shr_" + key,
			Method: method, Route: route, Status: status, Tokens: tokens, Overage: overage, Latency: lat, Time: at, Plan: plan, ErrorCode: code})
	}
	d1, d2 := analyticsDay, analyticsDay.Add(24*time.Hour)
	for i := range 10 {
		status, tokens, code := 200, 2, ""
		switch i {
		case 8:
			status, tokens, code = 404, 0, "NOT_FOUND"
		case 9:
			status, tokens, code = 500, 0, "INTERNAL_ERROR"
		}
		rec("aaaaaaaa", "uA", "pro", "GET", "/api/quote/{symbol}", status, tokens, 0, time.Duration(i+1)*time.Millisecond,
			d1.Add(10*time.Hour+time.Duration(i)*time.Minute), code)
	}
	for i := range 4 {
		over := 0
		if i >= 2 {
			over = 5
		}
		rec("aaaaaaaa", "uA", "pro", "POST", "/api/screen/{symbol}", 200, 5, over, 100*time.Millisecond, d1.Add(11*time.Hour+time.Duration(10+i)*time.Minute), "")
	}
	for i := range 3 {
		rec("bbbbbbbb", "uB", "free", "GET", "/api/quote/{symbol}", 200, 2, 0, 3*time.Millisecond, d2.Add(9*time.Hour+time.Duration(i)*time.Minute), "")
	}
	rec("bbbbbbbb", "uB", "free", "GET", "/api/quote/{symbol}", 429, 0, 0, time.Millisecond, d2.Add(9*time.Hour+30*time.Minute), shariah.EQUOTA)
	rec("bbbbbbbb", "uB", "free", "GET", "/api/quote/{symbol}", 429, 0, 0, time.Millisecond, d2.Add(9*time.Hour+40*time.Minute), shariah.EQUOTA)
	rec("bbbbbbbb", "uB", "free", "GET", "/api/quote/{symbol}", 429, 0, 0, time.Millisecond, d2.Add(9*time.Hour+50*time.Minute), shariah.ERATELIMITED)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestUsageAnalyticsFromTheAggregates(t *testing.T) {
	t.Parallel()
	db := setup(t)
	seedAnalytics(t, db)
	ctx := context.Background()
	r := analytics.UsageReader{DB: db}
	week := account.UsageRange{From: analyticsDay, To: analyticsDay.Add(7 * 24 * time.Hour)}
	at := func(d, h int) time.Time {
		return analyticsDay.Add(time.Duration(d)*24*time.Hour + time.Duration(h)*time.Hour)
	}

	t.Run("by day, no grouping", func(t *testing.T) {
		rep, err := r.UsageSeries(ctx, account.UsageQuery{Range: week, Granularity: "day", GroupBy: "none"})
		if err != nil {
			t.Fatal(err)
		}
		// day 1: 14 requests, 16 + 20 tokens, one 404, one 500; p50 of 1..10 ms and 4 x 100 ms is 9 ms
		// (exact: 14 values, under 5670)
		want := []account.UsageSeries{{Group: "all", Points: []account.UsagePoint{
			{Time: at(0, 0), UsageStats: account.UsageStats{Requests: 14, Tokens: 36, Errors4xx: 1, Errors5xx: 1, P50MS: 8, P95MS: 100, P99MS: 100}},
			{Time: at(1, 0), UsageStats: account.UsageStats{Requests: 6, Tokens: 6, Errors4xx: 3, P50MS: 3, P95MS: 3, P99MS: 3}},
		}}}
		for i := range rep.Series {
			for j := range rep.Series[i].Points {
				if i < len(want) && j < len(want[i].Points) {
					snap(&rep.Series[i].Points[j].UsageStats, want[i].Points[j].UsageStats, 1)
				}
			}
		}
		diff(t, "series", want, rep.Series)
		if tot := rep.Totals; tot.Requests != 20 || tot.Tokens != 42 || tot.Errors4xx != 4 || tot.Errors5xx != 1 {
			t.Fatalf("totals %+v", tot)
		}
	})
	t.Run("by hour and route", func(t *testing.T) {
		rep, err := r.UsageSeries(ctx, account.UsageQuery{Range: week, Granularity: "hour", GroupBy: "route"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		var order []string
		for _, s := range rep.Series {
			order = append(order, s.Group)
			for _, p := range s.Points {
				got[s.Group] = append(got[s.Group], fmt.Sprintf("%s %d req %d tok", p.Time.Format("02T15"), p.Requests, p.Tokens))
			}
		}
		want := map[string][]string{
			"/api/quote/{symbol}":  {"20T10 10 req 16 tok", "21T09 6 req 6 tok"},
			"/api/screen/{symbol}": {"20T11 4 req 20 tok"},
		}
		diff(t, "points", want, got)
		if !slices.Equal(order, []string{"/api/quote/{symbol}", "/api/screen/{symbol}"}) {
			t.Fatalf("order %v", order)
		}
	})
	t.Run("by plan, one route", func(t *testing.T) {
		rep, err := r.UsageSeries(ctx, account.UsageQuery{Range: week, Granularity: "day", GroupBy: "plan", Route: "/api/quote/{symbol}"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Series) != 2 || rep.Series[0].Group != "pro" || rep.Series[0].Points[0].Requests != 10 ||
			rep.Series[1].Group != "free" || rep.Series[1].Points[0].Requests != 6 || rep.Totals.Requests != 16 {
			t.Fatalf("series %+v totals %+v", rep.Series, rep.Totals)
		}
	})
	t.Run("by key, with and without a route, one plan", func(t *testing.T) {
		for _, q := range []account.UsageQuery{
			{Range: week, Granularity: "day", GroupBy: "key", Plan: "pro"},
			{Range: week, Granularity: "day", GroupBy: "key", Plan: "pro", Route: "/api/screen/{symbol}"},
		} {
			rep, err := r.UsageSeries(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(14)
			if q.Route != "" {
				want = 4
			}
			if len(rep.Series) != 1 || rep.Series[0].Group != "shr_aaaaaaaa" || rep.Series[0].Points[0].Requests != want || rep.Totals.Requests != want {
				t.Fatalf("%+v: series %+v", q, rep.Series)
			}
		}
	})
	t.Run("a range without requests", func(t *testing.T) {
		rep, err := r.UsageSeries(ctx, account.UsageQuery{Range: account.UsageRange{From: at(3, 0), To: at(4, 0)}, Granularity: "hour", GroupBy: "none"})
		if err != nil || len(rep.Series) != 0 || rep.Totals != (account.UsageStats{}) {
			t.Fatalf("%+v, %v", rep, err)
		}
	})
	t.Run("the range is half-open", func(t *testing.T) {
		rep, err := r.UsageSeries(ctx, account.UsageQuery{Range: account.UsageRange{From: at(0, 11), To: at(1, 9)}, Granularity: "hour", GroupBy: "none"})
		if err != nil || rep.Totals.Requests != 4 {
			t.Fatalf("11:00 day 1 to 09:00 day 2: %+v, %v", rep.Totals, err)
		}
		// hours of day 1 (hourly table) and the whole day 2 (daily rollup), read as one
		for _, g := range []string{"day", "hour"} {
			rep, err = r.UsageSeries(ctx, account.UsageQuery{Range: account.UsageRange{From: at(0, 11), To: at(2, 0)}, Granularity: g, GroupBy: "none"})
			if err != nil || rep.Totals.Requests != 10 || rep.Totals.Tokens != 26 {
				t.Fatalf("granularity %s, 11:00 day 1 to the end of day 2: %+v, %v", g, rep.Totals, err)
			}
		}
		keys, err := r.TopKeys(ctx, account.UsageRange{From: at(0, 11), To: at(2, 0)}, 10)
		if err != nil || len(keys) != 2 || keys[0].Tokens != 20 || keys[1].Tokens != 6 {
			t.Fatalf("top keys over hours and a day: %+v, %v", keys, err)
		}
	})
	t.Run("routes", func(t *testing.T) {
		got, err := r.RouteUsage(ctx, week, "", "")
		if err != nil {
			t.Fatal(err)
		}
		want := []account.RouteUsage{
			{Method: "GET", Route: "/api/quote/{symbol}", ErrorRate: 0.3125,
				UsageStats: account.UsageStats{Requests: 16, Tokens: 22, Errors4xx: 4, Errors5xx: 1, P50MS: 3, P95MS: 10, P99MS: 10}},
			{Method: "POST", Route: "/api/screen/{symbol}", UsageStats: account.UsageStats{Requests: 4, Tokens: 20, P50MS: 100, P95MS: 100, P99MS: 100}},
		}
		for i := range got {
			if i < len(want) {
				snap(&got[i].UsageStats, want[i].UsageStats, 1)
			}
		}
		diff(t, "routes", want, got)
		free, err := r.RouteUsage(ctx, week, "free", "")
		if err != nil || len(free) != 1 || free[0].Requests != 6 {
			t.Fatalf("free plan: %+v, %v", free, err)
		}
		mine, err := r.RouteUsage(ctx, week, "", "uB")
		if err != nil || len(mine) != 1 || mine[0].Requests != 6 || mine[0].Errors4xx != 3 || mine[0].Tokens != 6 {
			t.Fatalf("user uB: %+v, %v", mine, err)
		}
	})
	t.Run("top keys", func(t *testing.T) {
		got, err := r.TopKeys(ctx, week, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []account.KeyUsage{
			{KeyPrefix: "shr_aaaaaaaa", UserID: "uA", Plan: "pro", Requests: 14, Tokens: 36, OverageTokens: 10, Errors: 2},
			{KeyPrefix: "shr_bbbbbbbb", UserID: "uB", Plan: "free", Requests: 6, Tokens: 6, Errors: 3},
		}
		diff(t, "top keys", want, got)
		if one, err := r.TopKeys(ctx, week, 1); err != nil || len(one) != 1 || one[0].KeyPrefix != "shr_aaaaaaaa" {
			t.Fatalf("limit 1: %+v, %v", one, err)
		}
	})
	t.Run("quota events", func(t *testing.T) {
		got, err := r.QuotaEvents(ctx, week, 100)
		if err != nil {
			t.Fatal(err)
		}
		want := []account.QuotaEvent{
			{Time: at(1, 9).Add(30 * time.Minute), Kind: account.QuotaExhausted, KeyPrefix: "shr_bbbbbbbb", UserID: "uB", Plan: "free", Requests: 2},
			{Time: at(0, 11).Add(12 * time.Minute), Kind: account.OverageStarted, KeyPrefix: "shr_aaaaaaaa", UserID: "uA", Plan: "pro", Requests: 2},
		}
		diff(t, "quota events", want, got)
		// a range starting after the overage began: the month's start is looked back to, so the
		// overage of day 1 is not taken for a start on day 2
		later, err := r.QuotaEvents(ctx, account.UsageRange{From: at(1, 0), To: at(2, 0)}, 100)
		if err != nil || len(later) != 1 || later[0].Kind != account.QuotaExhausted {
			t.Fatalf("day 2 only: %+v, %v", later, err)
		}
	})
}

// snap replaces got's percentiles by want's where they are within tol (the state's error), so that the
// rest compares exactly.
func snap(got *account.UsageStats, want account.UsageStats, tol float64) {
	for _, p := range []struct{ g, w *float64 }{{&got.P50MS, &want.P50MS}, {&got.P95MS, &want.P95MS}, {&got.P99MS, &want.P99MS}} {
		if math.Abs(*p.g-*p.w) <= tol {
			*p.g = *p.w
		}
	}
}

func diff(t *testing.T, what string, want, got any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// TestUsagePercentilesWithinTheStateError: quantilesTiming's documented accuracy is exact under 1024
// ms (or with at most 5670 values) and a multiple of 16 ms above (observed: under 24 ms, see below), for any number of values
// merged from many states. 20000 latencies, spread over 50 hours (50 states merged), half under a second
// and half between 1 and 3 s, against the exact nearest-rank percentiles (whole ms, rounded up as the
// view rounds them).
func TestUsagePercentilesWithinTheStateError(t *testing.T) {
	t.Parallel()
	db := setup(t)
	w, ctx := runningWriter(t, db, 5000)
	const n = 20000
	ms := make([]int, n)
	for i := range n {
		v := 1 + (i*7919)%1000 // 1..1000 ms
		if i%2 == 1 {
			v = 1000 + (i*104729)%2000 // 1000..2999 ms
		}
		ms[i] = v
		// 0.4 ms under the whole ms: the view rounds up to v
		lat := time.Duration(v)*time.Millisecond - 400*time.Microsecond
		w.Record(account.UsageEvent{RequestID: fmt.Sprintf("p-%05d", i), KeyID: "k", UserID: "u", KeyPrefix: "shr_k", Method: "GET",
			Route: "/api/quote/{symbol}", Status: 200, Latency: lat, Time: analyticsDay.Add(time.Duration(i%50) * time.Hour), Plan: "pro"})
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := analytics.UsageReader{DB: db}.UsageSeries(ctx, account.UsageQuery{
		Range: account.UsageRange{From: analyticsDay, To: analyticsDay.Add(72 * time.Hour)}, Granularity: "day", GroupBy: "none"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ms)
	exact := func(p float64) float64 { return float64(ms[int(math.Ceil(p*n))-1]) }
	tot := rep.Totals
	if tot.Requests != n {
		t.Fatalf("requests %d", tot.Requests)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", tot.P50MS, exact(0.5)}, {"p95", tot.P95MS, exact(0.95)}, {"p99", tot.P99MS, exact(0.99)}} {
		// Under 1024 ms: exact, but for the rank convention (one rank either way: at most 1 ms apart
		// in these data). Above: documented as rounded to a multiple of 16 ms; the server answers from a
		// 16 ms bucket a value moved by a fixed jitter of up to 8 ms, so the bound is 16 + 8 ms.
		tol := 1.0
		if c.want >= 1024 {
			tol = 24
		}
		if math.Abs(c.got-c.want) > tol {
			t.Errorf("%s = %v ms, exact %v ms: beyond the documented error (%v ms)", c.name, c.got, c.want, tol)
		}
	}
}

// TestSpoolLinesOfThePreviousVersionAreShipped: a spool written by an edge before the upgrade (u1 lines,
// without plan and error code) is read after it: its events reach ClickHouse with an empty plan and
// error code, next to u2 lines.
func TestSpoolLinesOfThePreviousVersionAreShipped(t *testing.T) {
	t.Parallel()
	db := setup(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "slot-1")
	if err := os.MkdirAll(old, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := "u1\t\"old-1\"\t\"k\"\t\"u1\"\t\"shr_k\"\t\"GET\"\t\"/api/quote/{symbol}\"\t200\t2\t0\t1500\t1795600800000\n" +
		"u2\t\"new-1\"\t\"k\"\t\"u1\"\t\"shr_k\"\t\"GET\"\t\"/api/quote/{symbol}\"\t429\t0\t0\t1500\t1795600801000\t\"free\"\t\"QUOTA_EXCEEDED\"\n"
	if err := os.WriteFile(filepath.Join(old, "000000000001.log"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWriter(t, db, dir, 0, 100, time.Hour) // slot-0; adopts slot-1
	go w.Run(ctx)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Conn.Query(ctx, "SELECT request_id, plan, error_code, tokens FROM "+db.Name+".usage_events ORDER BY request_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, plan, code string
		var tokens uint32
		if err := rows.Scan(&id, &plan, &code, &tokens); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %q %q %d", id, plan, code, tokens))
	}
	diff(t, "rows", []string{`new-1 "free" "QUOTA_EXCEEDED" 0`, `old-1 "" "" 2`}, got)
	if st := w.Stats(); st.Corrupt != 0 {
		t.Fatalf("stats %+v", st)
	}
}
