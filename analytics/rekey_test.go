package analytics_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

var errCrash = errors.New("the migration stops here, as a crash would")

// migrateThroughCrashes runs the migrations up to upTo (0: all) again and again, each run stopped before
// the first step it has not been stopped at yet, as a crash there would, until a run completes. check,
// when set, sees every step before the stop decision; between runs after each stopped one (the edge
// records and ships on between them); logs, when set, is added to a failure. It returns the steps
// stopped at, in order.
func migrateThroughCrashes(t *testing.T, ctx context.Context, db *analytics.DB, upTo uint32, check func(step string), between func(run int), logs func() string) []string {
	t.Helper()
	var steps []string
	stopped := map[string]bool{}
	for run := 0; ; run++ {
		if run > 20 {
			t.Fatalf("the migration never completed; steps stopped at: %v", steps)
		}
		_, err := db.MigrateWith(ctx, upTo, func(step string) error {
			if check != nil {
				check(step)
			}
			if !stopped[step] {
				stopped[step] = true
				steps = append(steps, step)
				return errCrash
			}
			return nil
		})
		if err == nil {
			return steps
		}
		if !errors.Is(err, errCrash) {
			extra := ""
			if logs != nil {
				extra = "\n" + logs()
			}
			t.Fatalf("run %d: %v%s", run, err, extra)
		}
		if between != nil {
			between(run)
		}
	}
}

// oldSchema opens a database migrated up to migration 005: usage_events on the old key.
func oldSchema(t *testing.T) *analytics.DB {
	t.Helper()
	db, err := analytics.Open(testsvc.ClickHouseDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.MigrateWith(context.Background(), 5, nil); err != nil {
		t.Fatal(err)
	}
	return db
}

func sortingKey(t *testing.T, db *analytics.DB) string {
	t.Helper()
	var k string
	if err := db.Conn.QueryRow(context.Background(), "SELECT sorting_key FROM system.tables WHERE database = ? AND name = 'usage_events'", db.Name).Scan(&k); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestRekeyResumesAfterACrashBetweenSteps: migration 006 runs while an edge keeps recording and
// shipping events every 20 ms; it is stopped before each of its steps in turn (a hook returning an
// error, as a crash there) and run again, until it completes. Then usage_events is on the new key,
// holds every event once (the history of two months, rows without an event id among them, and
// everything shipped during the migration), the views count each event once (the moved rows fire no
// view), and the old and staging tables are gone.
func TestRekeyResumesAfterACrashBetweenSteps(t *testing.T) {
	t.Parallel()
	db := oldSchema(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// history: 300 events in October and November through the writer, 200 rows of an older binary
	// (no event id)
	w := newWriter(t, db, t.TempDir(), 0, 50000, 20*time.Millisecond)
	oct := time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC)
	for i := range 300 {
		w.Record(account.UsageEvent{RequestID: "h-" + strconv.Itoa(i%10), KeyID: "k", UserID: "u" + strconv.Itoa(i%3), Method: "GET",
			Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: oct.Add(time.Duration(i) * time.Second)})
	}
	if err := w.ShipBudget(ctx, -1); err != nil {
		t.Fatal(err)
	}
	if err := db.Conn.Exec(ctx, "INSERT INTO "+db.Name+".usage_events (request_id, key_id, user_id, key_prefix, method, route, status, tokens, overage, latency_us, ts, ts_ms)"+
		" SELECT concat('old-', toString(number)), 'k', 'u9', 'shr_x', 'GET', '/api/quote/{symbol}', 200, 1, 0, number, toDateTime('2026-11-02 00:00:00'), 1793577600000 + number FROM system.numbers LIMIT 200"); err != nil {
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
				w.Record(account.UsageEvent{RequestID: "live", KeyID: "k", UserID: "u" + strconv.Itoa(k%5), Method: "GET",
					Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: time.Now()})
			}
			recorded.Add(50)
			time.Sleep(5 * time.Millisecond)
		}
	}()
	waitFor(t, "the live edge's first events in the old table", func() bool {
		n, ok := tryCount(db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events")
		return ok && n > 500
	})
	steps := migrateThroughCrashes(t, ctx, db, 6, nil, func(int) {
		time.Sleep(30 * time.Millisecond) // let the edge ship between runs: the migration runs under it
	}, nil)
	t.Logf("stopped before each of %v", steps)
	// every step, and a stage and an attach for each month of the old table (the history's two, and the
	// current month's, which the live edge shipped into before the migration began)
	want := []string{"create", "swap", "drain", "stage 202610", "attach 202610", "stage 202611", "attach 202611"}
	if now := time.Now().UTC().Format("200601"); now != "202610" && now != "202611" {
		want = append(want, "stage "+now, "attach "+now)
	}
	want = append(want, "drop")
	if !slices.Equal(steps, want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	close(stop)
	wg.Wait()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if k := sortingKey(t, db); k != "user_id, ts, event_id" {
		t.Fatalf("sorting key %q after the migration", k)
	}
	n := uint64(500 + recorded.Load())
	q := "SELECT toUInt64(count()) FROM " + db.Name + ".usage_events"
	if got := count(t, db, q); got != n {
		t.Fatalf("%d rows after the migration, want %d", got, n)
	}
	if got := count(t, db, "SELECT toUInt64(uniqExact(event_id)) FROM "+db.Name+".usage_events"); got != n {
		t.Fatalf("%d distinct event ids, want %d", got, n)
	}
	for _, v := range []string{"usage_hourly", "usage_route_daily", "usage_key_hourly"} {
		if got := count(t, db, "SELECT toUInt64(countMerge(requests)) FROM "+db.Name+"."+v); got != n {
			t.Errorf("%s counts %d, want %d", v, got, n)
		}
	}
	if got := count(t, db, "SELECT toUInt64(count()) FROM system.tables WHERE database = '"+db.Name+"' AND name LIKE 'usage_events_%'"); got != 0 {
		t.Fatalf("%d tables of the migration left", got)
	}
	days, err := analytics.UsageReader{DB: db}.DailyUsage(ctx, "u9", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(days) != 1 || days[0].Requests != 200 {
		t.Fatalf("u9's daily usage %+v, %v: want the 200 rows moved", days, err)
	}
}

// TestRekeyCompletesASwapCutBetweenItsRenames: a run stopped between the two renames of the swap (the
// old table renamed, the new one not yet) leaves no usage_events; the next run finishes the swap.
func TestRekeyCompletesASwapCutBetweenItsRenames(t *testing.T) {
	t.Parallel()
	db := oldSchema(t)
	ctx := context.Background()
	w, _ := runningWriter(t, db, 100)
	for i := range 10 {
		w.Record(event(i))
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := db.MigrateWith(ctx, 6, func(step string) error {
		if step == "swap" {
			if err := db.Conn.Exec(ctx, "RENAME TABLE "+db.Name+".usage_events TO "+db.Name+".usage_events_prekey"); err != nil {
				t.Fatal(err)
			}
			return errCrash
		}
		return nil
	})
	if !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if k := sortingKey(t, db); k != "user_id, ts, event_id" {
		t.Fatalf("sorting key %q", k)
	}
	w.Record(event(10))
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); got != 11 {
		t.Fatalf("%d rows, want 11", got)
	}
	if got := count(t, db, "SELECT toUInt64(countMerge(requests)) FROM "+db.Name+".usage_hourly"); got != 11 {
		t.Fatalf("the views count %d, want 11 (they fire for the new table)", got)
	}
}

// TestRekeyOnACluster: the cluster form of migration 006 on two replicas, stopped before each step in
// turn and run again, while events are shipped through replica 0: both replicas end with the new key
// and every event once, and the views count each once.
func TestRekeyOnACluster(t *testing.T) {
	t.Parallel()
	c, name := testsvc.ClickHouseClusterDB(t)
	db := openOn(t, c, 0, name)
	ctx := context.Background()
	if _, err := db.MigrateWith(ctx, 5, nil); err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	w := newWriter(t, db, t.TempDir(), 0, 1000, time.Hour)
	runWriter(t, w)
	oct := time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC)
	rec := func(from, to int) {
		for i := from; i < to; i++ {
			w.Record(account.UsageEvent{RequestID: "same", KeyID: "k", UserID: "u" + strconv.Itoa(i%3), Method: "GET",
				Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: oct.Add(time.Duration(i) * time.Second)})
		}
		flush(t, w)
	}
	rec(0, 200)
	stopped := migrateThroughCrashes(t, ctx, db, 6, nil, func(run int) {
		rec(200+run*10, 210+run*10) // shipped between the runs
	}, c.Logs)
	n := uint64(200 + 10*(len(stopped)))
	for i := range c.Replicas {
		r := openOn(t, c, i, name)
		syncReplica(t, r, "usage_events_local", "usage_hourly_local")
		var k string
		if err := r.Conn.QueryRow(ctx, "SELECT sorting_key FROM system.tables WHERE database = ? AND name = 'usage_events_local'", name).Scan(&k); err != nil || k != "user_id, ts, event_id" {
			t.Fatalf("replica %d: sorting key %q, %v", i, k, err)
		}
		if got := count(t, r, "SELECT toUInt64(count()) FROM "+name+".usage_events_local"); got != n {
			t.Fatalf("replica %d: %d rows, want %d", i, got, n)
		}
		if got := count(t, r, "SELECT toUInt64(countMerge(requests)) FROM "+name+".usage_hourly_local"); got != n {
			t.Fatalf("replica %d: the views count %d, want %d", i, got, n)
		}
		if got := count(t, r, "SELECT toUInt64(count()) FROM system.tables WHERE database = '"+name+"' AND name LIKE 'usage_events_%' AND name != 'usage_events_local'"); got != 0 {
			t.Fatalf("replica %d: %d tables of the migration left", i, got)
		}
	}
}
