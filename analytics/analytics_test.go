package analytics_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

var ch *testsvc.Proc

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ch-test-")
	if err != nil {
		panic(err)
	}
	ch, err = testsvc.StartClickHouse(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start clickhouse:", err)
		os.Exit(1)
	}
	code := m.Run()
	ch.Stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// setup opens a fresh, migrated database for the test.
func setup(t *testing.T) *analytics.DB {
	t.Helper()
	db, err := analytics.Open(ch.ClickHouseURL(fmt.Sprintf("t%d", time.Now().UnixNano())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestMigrateIsIdempotent(t *testing.T) {
	db := setup(t)
	applied, err := db.Migrate(context.Background())
	if err != nil || len(applied) != 0 {
		t.Fatalf("second migrate applied %v, %v; want nothing", applied, err)
	}
}

func TestWriterWritesEveryEventOnceAndReadsBack(t *testing.T) {
	db := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := analytics.NewUsageWriter(db, 10000, 100, time.Hour, nil) // batches by size; the rest on Flush
	go w.Run(ctx)
	day1 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	day2 := day1.Add(24 * time.Hour)
	const n = 250
	for i := range n {
		at := day1
		if i >= 200 {
			at = day2
		}
		status := 200
		if i%50 == 0 {
			status = 404
		}
		w.Record(shariah.UsageEvent{RequestID: fmt.Sprintf("req-%03d", i), KeyID: "k1", UserID: "u1", KeyPrefix: "shr_abcdefgh",
			Method: "GET", Route: "/api/auth/me", Status: status, Tokens: 2, Latency: 1500 * time.Microsecond,
			Time: at.Add(time.Duration(i) * time.Millisecond)})
	}
	w.Record(shariah.UsageEvent{RequestID: "other", UserID: "u2", Time: day1, Status: 200})
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var total, distinct uint64
	if err := db.Conn.QueryRow(ctx, "SELECT toUInt64(count()), toUInt64(uniqExact(request_id)) FROM "+db.Name+".usage_events").Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != n+1 || distinct != n+1 {
		t.Fatalf("rows %d, distinct request ids %d; want %d each", total, distinct, n+1)
	}
	r := analytics.UsageReader{DB: db}
	days, err := r.DailyUsage(ctx, "u1", day1.Add(-48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []shariah.DailyUsage{{Date: "2026-11-20", Requests: 200, Tokens: 400, Errors: 4}, {Date: "2026-11-21", Requests: 50, Tokens: 100, Errors: 1}}
	if fmt.Sprint(days) != fmt.Sprint(want) {
		t.Fatalf("daily = %+v, want %+v", days, want)
	}
	recent, err := r.RecentRequests(ctx, "u1", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 3 || recent[0].RequestID != "req-249" || recent[2].RequestID != "req-247" || recent[0].LatencyMS != 1.5 {
		t.Fatalf("recent = %+v", recent)
	}
	if written, dropped, _ := w.Stats(); written != n+1 || dropped != 0 {
		t.Fatalf("stats written %d dropped %d", written, dropped)
	}
}

func TestWriterDropsAndCountsWhenBufferIsFull(t *testing.T) {
	db := setup(t)
	w := analytics.NewUsageWriter(db, 10, 10, time.Hour, nil) // not running: the buffer fills
	for i := range 25 {
		w.Record(shariah.UsageEvent{RequestID: fmt.Sprint(i), Time: time.Now()})
	}
	if _, dropped, _ := w.Stats(); dropped != 15 {
		t.Fatalf("dropped = %d, want 15", dropped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go w.Run(ctx)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if written, _, _ := w.Stats(); written != 10 {
		t.Fatalf("written = %d, want the 10 buffered", written)
	}
}

func TestWriterCountsBatchesClickHouseRefuses(t *testing.T) {
	db, err := analytics.Open(ch.ClickHouseURL("never_migrated"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := analytics.NewUsageWriter(db, 100, 100, time.Hour, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	w.Record(shariah.UsageEvent{RequestID: "x", Time: time.Now()})
	if err := w.Flush(ctx); err == nil {
		t.Fatal("flush into a missing table succeeded")
	}
	if _, dropped, failed := w.Stats(); dropped != 1 || failed != 1 {
		t.Fatalf("dropped %d failed %d, want 1 and 1", dropped, failed)
	}
}

func TestWriterFlushesOnItsInterval(t *testing.T) {
	db := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := analytics.NewUsageWriter(db, 100, 100, 50*time.Millisecond, nil) // batch never fills: time must flush
	go w.Run(ctx)
	w.Record(shariah.UsageEvent{RequestID: "timed", UserID: "u", Time: time.Now()})
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the interval flush never wrote the event")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTrajectoryRoundTripAndReplace(t *testing.T) {
	db := setup(t)
	ctx := context.Background()
	tr := analytics.Trajectory{DB: db}
	f := func(v float64) *float64 { return &v }
	var pts []shariah.TrajectoryPoint
	for i := range 10 {
		end := time.Date(2023, time.Month(3*(i%4)+3), 30, 0, 0, 0, 0, time.UTC).AddDate(i/4, 0, 0)
		pts = append(pts, shariah.TrajectoryPoint{PeriodEnd: end.Format("2006-01-02"), Period: fmt.Sprintf("Q%d", i%4+1),
			DebtAssets: f(0.1 + float64(i)/100), CashAssets: f(0.2), Source: "filing", Accession: fmt.Sprintf("acc-%d", i)})
	}
	pts = append(pts, shariah.TrajectoryPoint{PeriodEnd: "2025-12-30", Period: "FY", DebtAssets: f(9)})
	if err := tr.PutTrajectory(ctx, "AAPL", pts); err != nil {
		t.Fatal(err)
	}
	pts[9].DebtAssets = f(0.55) // re-ingest of the latest quarter replaces it
	if err := tr.PutTrajectory(ctx, "AAPL", pts[9:10]); err != nil {
		t.Fatal(err)
	}
	got, err := tr.Trajectory(ctx, "AAPL", 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 || got[7].PeriodEnd != pts[9].PeriodEnd || *got[7].DebtAssets != 0.55 || got[0].PeriodEnd != pts[2].PeriodEnd ||
		got[0].LiquidityAssets != nil || got[0].Accession != "acc-2" {
		t.Fatalf("trajectory %+v", got)
	}
}
