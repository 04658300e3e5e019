package analytics_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// migratedTo opens a fresh database migrated up to version upTo (0: all).
func migratedTo(t *testing.T, upTo uint32) *analytics.DB {
	t.Helper()
	db, err := analytics.Open(testsvc.ClickHouseDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.MigrateWith(context.Background(), upTo, nil); err != nil {
		t.Fatal(err)
	}
	return db
}

// aggregate is one of migration 003's tables: its grain, and how each of its rows is finalized.
type aggregate struct {
	table, dims, raw  string // raw: the grain over usage_events
	values, rawValues string
}

const (
	statValues    = "toUInt64(countMerge(requests)), toUInt64(sumMerge(tokens)), toUInt64(sumMerge(overage)), toUInt64(sumMerge(errors_4xx)), toUInt64(sumMerge(errors_5xx)), quantilesTimingMerge(0.5, 0.95, 0.99)(latency)"
	statRawValues = "toUInt64(count()), toUInt64(sum(tokens)), toUInt64(sum(overage)), toUInt64(sum(status >= 400 AND status < 500)), toUInt64(sum(status >= 500)), quantilesTiming(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000)))"
)

var aggregates = []aggregate{
	{"usage_hourly", "user_id, hour, key_id, key_prefix, plan, route, method", "user_id, toStartOfHour(ts) AS hour, key_id, key_prefix, plan, route, method", statValues, statRawValues},
	{"usage_route_hourly", "hour, route, method, plan", "toStartOfHour(ts) AS hour, route, method, plan", statValues, statRawValues},
	{"usage_key_hourly", "hour, key_id, user_id, key_prefix, plan", "toStartOfHour(ts) AS hour, key_id, user_id, key_prefix, plan", statValues, statRawValues},
	{"usage_route_daily", "day, route, method, plan", "toStartOfDay(ts) AS day, route, method, plan", statValues, statRawValues},
	{"usage_key_daily", "day, key_id, user_id, key_prefix, plan", "toStartOfDay(ts) AS day, key_id, user_id, key_prefix, plan", statValues, statRawValues},
	{"usage_quota_daily", "day, kind, key_id, user_id, key_prefix, plan", "toDate(ts) AS day, if(error_code = 'QUOTA_EXCEEDED', 'quota_exhausted', 'overage') AS kind, key_id, user_id, key_prefix, plan",
		"minMerge(first), toUInt64(countMerge(requests))", "min(ts), toUInt64(count())"},
}

// rowsOf returns the finalized rows of a query, each as one string, sorted.
func rowsOf(t *testing.T, db *analytics.DB, dims, values, from string) []string {
	t.Helper()
	sel, outer := []string{dims}, strings.Split(dimsOf(dims), ", ")
	for i, v := range splitTop(values) {
		sel = append(sel, fmt.Sprintf("%s AS v%d", strings.TrimSpace(v), i))
		outer = append(outer, fmt.Sprintf("v%d", i))
	}
	for i := range outer {
		outer[i] = "toString(" + outer[i] + ")"
	}
	q := "SELECT concat(" + strings.Join(outer, ", '|', ") + ") FROM (SELECT " + strings.Join(sel, ", ") + " FROM " + from + ")"
	rows, err := db.Conn.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// splitTop splits a select list on the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// dimsOf is the grouping of a dims list: its aliases where it has them.
func dimsOf(dims string) string {
	var out []string
	for _, d := range splitTop(dims) {
		d = strings.TrimSpace(d)
		if i := strings.LastIndex(d, " AS "); i >= 0 {
			d = d[i+4:]
		}
		out = append(out, d)
	}
	return strings.Join(out, ", ")
}

// finalized is every row of an aggregate table, its states finalized.
func finalized(t *testing.T, db *analytics.DB, a aggregate) []string {
	return rowsOf(t, db, dimsOf(a.dims), a.values, db.Name+"."+a.table+" GROUP BY "+dimsOf(a.dims))
}

// fromRawRows is what the aggregate's rows are over usage_events (the direct views' definition).
func fromRawRows(t *testing.T, db *analytics.DB, a aggregate) []string {
	return fromRawRowsOf(t, db, a, "usage_events")
}

func fromRawRowsOf(t *testing.T, db *analytics.DB, a aggregate, events string) []string {
	where := ""
	if strings.HasPrefix(a.table, "usage_quota_daily") {
		where = " WHERE error_code = 'QUOTA_EXCEEDED' OR overage > 0"
	}
	return rowsOf(t, db, a.raw, a.rawValues, db.Name+"."+events+where+" GROUP BY "+dimsOf(a.raw))
}

// recordMixed records n events, the same for the same seed: 3 users with 2 keys each, 3 routes (most
// events on one, so that a day's state of it holds more than 5,670 latencies: quantilesTiming's large
// form), 2 methods and plans, statuses with client and server errors, quota refusals, overage, latencies
// from 0 to 40 s (70% under 1 s, 2% over 30 s; over 1,024 ms the state keeps 16 ms buckets; over 30 s it counts 30 s), over two days.
func recordMixed(w *analytics.UsageWriter, seed uint64, n int) {
	r := rand.New(rand.NewPCG(seed, 7))
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	routes := []string{"/api/quote/{symbol}", "/api/screen/{symbol}", "/api/auth/me"}
	for i := range n {
		u := r.IntN(3)
		k := fmt.Sprintf("k%d", u*2+r.IntN(2))
		route, method, plan := routes[0], "GET", "pro"
		if r.IntN(10) < 3 {
			route = routes[1+r.IntN(2)]
		}
		if r.IntN(10) == 0 {
			method = "POST"
		}
		if u == 2 {
			plan = "free"
		}
		status, tokens, over, code := 200, r.IntN(6), 0, ""
		switch x := r.IntN(100); {
		case x < 5:
			status, tokens, code = 404, 0, "NOT_FOUND"
		case x < 8:
			status, tokens, code = 500, 0, "INTERNAL_ERROR"
		case x < 11:
			status, tokens, code = 429, 0, shariah.EQUOTA
		case x < 13:
			status, tokens, code = 429, 0, shariah.ERATELIMITED
		case x < 20:
			over = 1 + r.IntN(tokens+1)
		}
		var lat time.Duration
		switch x := r.IntN(100); {
		case x < 70:
			lat = time.Duration(r.IntN(1000000)) * time.Microsecond
		case x < 98:
			lat = time.Duration(1000+r.IntN(29000)) * time.Millisecond
		default:
			lat = time.Duration(30000+r.IntN(10000)) * time.Millisecond
		}
		w.Record(account.UsageEvent{RequestID: fmt.Sprintf("r%d-%d", seed, i), KeyID: k, UserID: fmt.Sprintf("u%d", u), KeyPrefix: "shr_" + k,
			Method: method, Route: route, Status: status, Tokens: tokens, Overage: over, Latency: lat, Plan: plan, ErrorCode: code,
			Time: start.Add(time.Duration(i) * 48 * time.Hour / time.Duration(n))})
	}
}

// TestChainedViewsEqualDirectViews: the same 30,000 events, shipped in 15 batches, into a database with
// migration 003's six views over usage_events (migrated to 006) and one with migration 007's chained
// views (four aggregates fed from usage_hourly): every aggregate table's finalized rows (requests,
// tokens, overage, 4xx and 5xx errors, the three latency quantiles; the quota table's first time and
// count) are equal in both, and equal to the same aggregation over the raw rows.
func TestChainedViewsEqualDirectViews(t *testing.T) {
	t.Parallel()
	direct, chained := migratedTo(t, 6), migratedTo(t, 0)
	for _, v := range []string{"usage_route_hourly", "usage_key_hourly", "usage_route_daily", "usage_key_daily"} {
		if got := count(t, chained, "SELECT toUInt64(count()) FROM system.tables WHERE database = '"+chained.Name+"' AND name = '"+v+"_chained_mv' AND create_table_query LIKE '%FROM "+chained.Name+".usage_hourly%'"); got != 1 {
			t.Fatalf("%s has no chained view over usage_hourly", v)
		}
		if got := count(t, chained, "SELECT toUInt64(count()) FROM system.tables WHERE database = '"+chained.Name+"' AND name = '"+v+"_mv'"); got != 0 {
			t.Fatalf("%s's direct view is still there", v)
		}
	}
	const n = 30000
	for _, db := range []*analytics.DB{direct, chained} {
		w, wctx := runningWriter(t, db, 2000)
		recordMixed(w, 1, n)
		if err := w.Flush(wctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := count(t, chained, "SELECT toUInt64(count()) FROM "+chained.Name+".usage_events"); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
	// the largest state: more than 5,670 latencies, many over 1,024 ms
	if got := count(t, chained, "SELECT toUInt64(max(r)) FROM (SELECT countMerge(requests) AS r FROM "+chained.Name+".usage_route_daily GROUP BY day, route, method, plan)"); got <= 5670 {
		t.Fatalf("the largest route-day holds %d requests: the test does not reach quantilesTiming's large form", got)
	}
	for _, a := range aggregates {
		want := fromRawRows(t, chained, a)
		if len(want) < 4 {
			t.Fatalf("%s: %d rows over the raw events", a.table, len(want))
		}
		for name, db := range map[string]*analytics.DB{"direct views": direct, "chained views": chained} {
			got := finalized(t, db, a)
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Errorf("%s with %s, first difference:\n got %s\nwant %s", a.table, name, got[i], want[i])
						break
					}
				}
				t.Fatalf("%s with %s: %d rows differ from the raw rows' %d", a.table, name, len(got), len(want))
			}
		}
		t.Logf("%s: %d rows equal, e.g. %s", a.table, len(want), want[0])
	}
}

// allAggregatesExact checks that every aggregate table of a database (its local tables on a cluster
// replica: local) finalizes to the aggregation of the raw rows it holds, and counts n requests.
func allAggregatesExact(t *testing.T, db *analytics.DB, local string, n uint64) {
	t.Helper()
	for _, a := range aggregates {
		a.table += local
		raw := fromRawRowsOf(t, db, a, "usage_events"+local)
		if got := finalized(t, db, a); !slices.Equal(got, raw) {
			for i := range min(len(got), len(raw)) {
				if got[i] != raw[i] {
					t.Errorf("%s, first difference:\n got %s\nwant %s", a.table, got[i], raw[i])
					break
				}
			}
			t.Fatalf("%s: %d finalized rows differ from the raw rows' %d", a.table, len(got), len(raw))
		}
		if a.table == "usage_quota_daily"+local {
			continue
		}
		if got := count(t, db, "SELECT toUInt64(countMerge(requests)) FROM "+db.Name+"."+a.table); got != n {
			t.Fatalf("%s counts %d requests, want %d", a.table, got, n)
		}
	}
}

// TestChainResumesAfterACrashBetweenSteps: migration 007 runs while an edge keeps recording and
// shipping events every 20 ms; it is stopped before each of its steps in turn (a hook returning an
// error, as a crash there) and run again, until it completes. While inserts are paused an insert fails,
// and the aggregates and the history (usage_events, read through the stub) still answer. After:
// the chained views feed the four aggregates, the direct ones are gone, usage_events is back, and every
// aggregate counts every event once (the events before the switch through the direct views, the others
// through the chained ones): each finalizes to the aggregation of the raw rows.
func TestChainResumesAfterACrashBetweenSteps(t *testing.T) {
	t.Parallel()
	db := migratedTo(t, 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWriter(t, db, t.TempDir(), 0, 50000, 20*time.Millisecond)
	recordMixed(w, 2, 3000) // history, through the direct views
	if err := w.ShipBudget(ctx, -1); err != nil {
		t.Fatal(err)
	}
	go w.Run(ctx)
	var recorded atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the live edge
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			for k := range 50 {
				w.Record(account.UsageEvent{RequestID: "live", KeyID: "k" + strconv.Itoa(k%4), UserID: "u" + strconv.Itoa(k%5), KeyPrefix: "shr_k",
					Method: "GET", Route: "/api/quote/{symbol}", Status: 200 + 200*(k%7/6), Tokens: k % 3, Latency: time.Duration(i*k) * time.Millisecond,
					Plan: "pro", Time: time.Now()})
			}
			recorded.Add(50)
			time.Sleep(5 * time.Millisecond)
		}
	}()
	waitFor(t, "the live edge's first events", func() bool {
		n, ok := tryCount(db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events")
		return ok && n > 3500
	})
	r := analytics.UsageReader{DB: db}
	pausedChecked := false
	check := func(step string) {
		if step == "drain" && !pausedChecked { // inserts are paused
			pausedChecked = true
			if days, err := r.DailyUsage(ctx, "u1", time.Now().Add(-24*time.Hour)); err != nil || len(days) == 0 {
				t.Errorf("u1's history while paused: %v, %v; want it read through the stub", days, err)
			}
			if err := db.Conn.Exec(ctx, "INSERT INTO "+db.Name+".usage_events (request_id, user_id, ts) SELECT 'x', 'u', now()"); err == nil {
				t.Error("an insert succeeded while paused")
			}
			rep, err := r.UsageSeries(ctx, account.UsageQuery{Range: account.UsageRange{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour)}, Granularity: "hour", GroupBy: "none"})
			if err != nil || rep.Totals.Requests == 0 {
				t.Errorf("the analytics read %+v, %v while inserts were paused: want the aggregates", rep.Totals, err)
			}
		}
	}
	steps := migrateThroughCrashes(t, ctx, db, 0, check, func(int) {
		time.Sleep(30 * time.Millisecond) // the edge records on between runs (and ships, unless paused)
	}, nil)
	t.Logf("stopped before each of %v", steps)
	want := []string{"pause", "drain", "switch usage_route_hourly", "switch usage_key_hourly", "switch usage_route_daily", "switch usage_key_daily", "resume"}
	if !slices.Equal(steps, want) || !pausedChecked {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	// the edge goes on through the chained views
	before := recorded.Load()
	waitFor(t, "events shipped after the switch", func() bool {
		n, ok := tryCount(db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events")
		return ok && n > uint64(3000+before)
	})
	close(stop)
	wg.Wait()
	fctx, fcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer fcancel()
	if err := retry(fctx, func() error { return w.Flush(fctx) }); err != nil {
		t.Fatal(err)
	}
	n := uint64(3000 + recorded.Load())
	if got := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
	if got := count(t, db, "SELECT toUInt64(uniqExact(event_id)) FROM "+db.Name+".usage_events"); got != n {
		t.Fatalf("%d distinct event ids, want %d", got, n)
	}
	allAggregatesExact(t, db, "", n)
	if got := count(t, db, "SELECT toUInt64(count()) FROM system.tables WHERE database = '"+db.Name+"' AND (name LIKE '%chained_mv' OR name LIKE 'usage_events_%' OR name LIKE 'chain_probe%' OR name IN ('usage_route_hourly_mv', 'usage_key_hourly_mv', 'usage_route_daily_mv', 'usage_key_daily_mv'))"); got != 4 {
		t.Fatalf("%d tables of the four chained views, the four direct ones, the migration's: want the 4 chained views only", got)
	}
}

// TestChainOnACluster: the cluster form of migration 007 on two replicas, stopped before each step in
// turn and run again, while an edge records through replica 0 and ships every 20 ms (its inserts fail
// while paused and are shipped after): on both replicas every aggregate counts every event once, each
// finalizing to the aggregation of the raw rows. The batches are alike (same users, routes, tokens), so
// a deduplication of the views' blocks would show.
func TestChainOnACluster(t *testing.T) {
	t.Parallel()
	c, name := testsvc.ClickHouseClusterDB(t)
	db := openOn(t, c, 0, name)
	ctx := context.Background()
	if _, err := db.MigrateWith(ctx, 6, nil); err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	w := newWriter(t, db, t.TempDir(), 0, 1000, 20*time.Millisecond)
	runWriter(t, w)
	hour := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	recorded := 0
	rec := func(k int) {
		for i := range k {
			w.Record(account.UsageEvent{RequestID: "same", KeyID: "k", UserID: "u" + strconv.Itoa(i%3), KeyPrefix: "shr_k", Method: "GET",
				Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Plan: "pro", Latency: time.Millisecond, Time: hour.Add(time.Duration(recorded) * time.Second)})
			recorded++
		}
	}
	rec(30)
	flush(t, w)
	stopped := migrateThroughCrashes(t, ctx, db, 0, nil, func(int) {
		rec(30)
		time.Sleep(100 * time.Millisecond)
	}, c.Logs)
	if len(stopped) != 7 {
		t.Fatalf("stopped before %v, want 7 steps", stopped)
	}
	rec(30)
	flush(t, w)
	n := uint64(recorded)
	for i := range c.Replicas {
		r := openOn(t, c, i, name)
		syncReplica(t, r, "usage_events_local", "usage_hourly_local", "usage_route_hourly_local", "usage_key_hourly_local", "usage_route_daily_local", "usage_key_daily_local", "usage_quota_daily_local")
		if got := count(t, r, "SELECT toUInt64(count()) FROM "+name+".usage_events_local"); got != n {
			t.Fatalf("replica %d: %d rows, want %d", i, got, n)
		}
		allAggregatesExact(t, r, "_local", n)
		if got := count(t, r, "SELECT toUInt64(count()) FROM system.tables WHERE database = '"+name+"' AND name LIKE '%chained_mv' AND create_table_query LIKE '% TO "+name+".usage_%_local %'"); got != 4 {
			t.Fatalf("replica %d: %d chained views into the local tables, want 4", i, got)
		}
	}
}
