package analytics_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestMain stops the ClickHouse the tests share; each test has a database of its own on it.
func TestMain(m *testing.M) { os.Exit(testsvc.Main(m)) }

// setup opens a fresh, migrated database for the test.
func setup(t *testing.T) *analytics.DB {
	t.Helper()
	db, err := analytics.Open(testsvc.ClickHouseDB(t))
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
	t.Parallel()
	db := setup(t)
	applied, err := db.Migrate(context.Background())
	if err != nil || len(applied) != 0 {
		t.Fatalf("second migrate applied %v, %v; want nothing", applied, err)
	}
}

func TestWriterWritesEveryEventOnceAndReadsBack(t *testing.T) {
	t.Parallel()
	db := setup(t)
	w, ctx := runningWriter(t, db, 100) // ships on Flush
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
		w.Record(account.UsageEvent{RequestID: fmt.Sprintf("req-%03d", i), KeyID: "k1", UserID: "u1", KeyPrefix: "shr_abcdefgh",
			Method: "GET", Route: "/api/auth/me", Status: status, Tokens: 2, Latency: 1500 * time.Microsecond,
			Time: at.Add(time.Duration(i) * time.Millisecond)})
	}
	w.Record(account.UsageEvent{RequestID: "other", UserID: "u2", Time: day1, Status: 200})
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
	want := []account.DailyUsage{{Date: "2026-11-20", Requests: 200, Tokens: 400, Errors: 4}, {Date: "2026-11-21", Requests: 50, Tokens: 100, Errors: 1}}
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
	if st := w.Stats(); st.Written != n+1 || st.Dropped != 0 || st.PendingBytes != 0 || st.Status != "ok" {
		t.Fatalf("stats %+v", st)
	}
}

// newWriter opens a usage writer on a spool directory (closed at the end of the test).
func newWriter(t *testing.T, db *analytics.DB, dir string, maxBytes int64, batch int, every time.Duration) *analytics.UsageWriter {
	t.Helper()
	w, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: dir, SpoolMaxBytes: maxBytes, BatchSize: batch, Interval: every})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// runningWriter is a usage writer on a spool of its own, shipping on Flush (its interval is an hour),
// and the context it runs in (cancelled at the end of the test, before the writer closes).
func runningWriter(t *testing.T, db *analytics.DB, batch int) (*analytics.UsageWriter, context.Context) {
	t.Helper()
	w := newWriter(t, db, t.TempDir(), 0, batch, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go w.Run(ctx)
	return w, ctx
}

func count(t *testing.T, db *analytics.DB, q string) uint64 {
	t.Helper()
	var n uint64
	if err := db.Conn.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func event(i int) account.UsageEvent {
	return account.UsageEvent{RequestID: fmt.Sprintf("r-%04d", i), KeyID: "k", UserID: "u1", KeyPrefix: "shr_abcdefgh", Method: "GET",
		Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)}
}

func TestSpoolDropsCountsAndRecoversWhenFull(t *testing.T) {
	t.Parallel()
	db := setup(t)
	w := newWriter(t, db, t.TempDir(), 1000, 100, time.Hour) // not running: the spool fills
	for i := range 25 {
		w.Record(event(i))
	}
	st := w.Stats()
	if st.Dropped == 0 || st.Dropped == 25 || st.Status != "full" || st.PendingBytes > 1000 {
		t.Fatalf("stats with a 1000-byte spool: %+v", st)
	}
	kept := 25 - st.Dropped
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Written != kept || st.PendingBytes != 0 {
		t.Fatalf("after shipping: %+v, want %d written", st, kept)
	}
	w.Record(event(100)) // room again
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Status != "ok" || st.Written != kept+1 {
		t.Fatalf("after room: %+v", st)
	}
}

func TestSpoolHoldsEventsWhileClickHouseRefusesAndShipsThemInOrder(t *testing.T) {
	t.Parallel()
	db, err := analytics.Open(testsvc.ClickHouseDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w := newWriter(t, db, t.TempDir(), 0, 7, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	for i := range 50 {
		w.Record(event(i))
	}
	if err := w.Flush(ctx); err == nil {
		t.Fatal("shipping into a missing table succeeded")
	}
	if st := w.Stats(); st.Status != "spooling" || st.Dropped != 0 || st.PendingBytes == 0 || st.Error == "" {
		t.Fatalf("while refused: %+v", st)
	}
	if _, err := db.Migrate(ctx); err != nil { // ClickHouse "returns"
		t.Fatal(err)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT toUInt64(uniqExact(request_id)) FROM "+db.Name+".usage_events"); n != 50 {
		t.Fatalf("%d distinct events after the outage, want 50", n)
	}
	if st := w.Stats(); st.Status != "ok" || st.PendingBytes != 0 || st.Written != 50 {
		t.Fatalf("after the outage: %+v", st)
	}
}

func TestSpoolReplayAfterCrashCountsEachRequestOnce(t *testing.T) {
	t.Parallel()
	db := setup(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: dir, BatchSize: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { w.Run(wctx); close(done) }()
	for i := range 30 {
		w.Record(event(i))
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	wcancel()
	<-done
	w.Close()
	// A crash between an insert and the record of its position: the position is lost, so the next
	// process ships the same events again.
	if err := os.Remove(filepath.Join(dir, "slot-0", "shipped")); err != nil {
		t.Fatal(err)
	}
	// Batches of 7 this time: four wholly in ClickHouse already, then one of three that holds the new event.
	w2 := newWriter(t, db, dir, 0, 7, time.Hour)
	go w2.Run(ctx)
	w2.Record(event(30))
	if err := w2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); n != 31 {
		t.Fatalf("%d rows, want the 30 shipped once and one more", n)
	}
	if st := w2.Stats(); st.Replayed != 30 || st.Written != 1 {
		t.Fatalf("stats after the replay: %+v, want 30 replayed and 1 written", st)
	}
	if n := count(t, db, "SELECT toUInt64(countMerge(requests)) FROM "+db.Name+".usage_hourly"); n != 31 {
		t.Fatalf("the aggregates count %d requests, want 31", n)
	}
	r := analytics.UsageReader{DB: db}
	days, err := r.DailyUsage(ctx, "u1", time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Requests != 31 || days[0].Tokens != 31 {
		t.Fatalf("daily %+v: want each request once", days)
	}
	recent, err := r.RecentRequests(ctx, "u1", 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 31 || recent[0].RequestID != "r-0030" || recent[1].RequestID != "r-0029" {
		t.Fatalf("recent: %d rows, first %+v", len(recent), recent[0])
	}
}

// A process that inserted only part of what the next one ships (its batch was smaller, or the budget
// stopped it) before it died without recording its position: the next process finds where the rows in
// ClickHouse end inside its own batch and inserts only the rest.
func TestSpoolReplayAfterCrashInsertsOnlyTheMissingRows(t *testing.T) {
	t.Parallel()
	db := setup(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: dir, BatchSize: 10, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 37 {
		w.Record(event(i))
	}
	if err := w.ShipBudget(ctx, 1); err != nil { // one batch: the first 10 events
		t.Fatal(err)
	}
	w.Close()
	if n := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); n != 10 {
		t.Fatalf("%d rows before the crash, want 10", n)
	}
	if err := os.Remove(filepath.Join(dir, "slot-0", "shipped")); err != nil { // the position is lost
		t.Fatal(err)
	}
	w2 := newWriter(t, db, dir, 0, 100, time.Hour)
	go w2.Run(ctx)
	w2.Record(event(37))
	if err := w2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); n != 38 {
		t.Fatalf("%d rows, want each of the 38 events once", n)
	}
	if n := count(t, db, "SELECT toUInt64(uniqExact(request_id)) FROM "+db.Name+".usage_events"); n != 38 {
		t.Fatalf("%d distinct events, want 38", n)
	}
	if st := w2.Stats(); st.Replayed != 10 || st.Written != 28 {
		t.Fatalf("stats after the replay: %+v, want 10 replayed and 28 written", st)
	}
	// Shipping goes on as usual afterwards: no lookup, no replay.
	w2.Record(event(38))
	if err := w2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w2.Stats(); st.Replayed != 10 || st.Written != 29 {
		t.Fatalf("stats after the next event: %+v", st)
	}
}

func TestSpoolOfADeadProcessIsAdoptedAndTornTailSkipped(t *testing.T) {
	t.Parallel()
	db := setup(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := newWriter(t, db, dir, 0, 100, time.Hour) // takes slot-0
	dead, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: dir, BatchSize: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 { // slot-1: recorded, never shipped
		dead.Record(event(i))
	}
	dead.Close() // the process dies
	segs, _ := filepath.Glob(filepath.Join(dir, "slot-1", "*.log"))
	if len(segs) != 1 {
		t.Fatalf("segments of the dead slot: %v", segs)
	}
	f, err := os.OpenFile(segs[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("u1\t\"r-torn\"\t\"k") // a write cut by the crash: no newline
	f.Close()
	go live.Run(ctx)
	live.Record(event(20))
	if err := live.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT toUInt64(uniqExact(request_id)) FROM "+db.Name+".usage_events"); n != 21 {
		t.Fatalf("%d events shipped, want the dead process's 20 and the live one", n)
	}
	if st := live.Stats(); st.PendingBytes != 0 || st.Corrupt != 0 {
		t.Fatalf("stats %+v", st)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "slot-1", "*.log")); len(left) != 0 {
		t.Fatalf("the drained slot keeps %v", left)
	}
}

func TestWriterFlushesOnItsInterval(t *testing.T) {
	t.Parallel()
	db := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWriter(t, db, t.TempDir(), 0, 100, 50*time.Millisecond) // nobody flushes: the interval must
	go w.Run(ctx)
	w.Record(account.UsageEvent{RequestID: "timed", UserID: "u", Time: time.Now()})
	deadline := time.Now().Add(10 * time.Second)
	for count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the interval flush never wrote the event")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTrajectoryRoundTripAndReplace(t *testing.T) {
	t.Parallel()
	db := setup(t)
	ctx := context.Background()
	tr := analytics.Trajectory{DB: db}
	f := func(v float64) *float64 { return &v }
	var pts []insights.TrajectoryPoint
	for i := range 10 {
		end := time.Date(2023, time.Month(3*(i%4)+3), 30, 0, 0, 0, 0, time.UTC).AddDate(i/4, 0, 0)
		pts = append(pts, insights.TrajectoryPoint{PeriodEnd: end.Format("2006-01-02"), Period: fmt.Sprintf("Q%d", i%4+1),
			DebtAssets: f(0.1 + float64(i)/100), CashAssets: f(0.2), Source: "filing", Accession: fmt.Sprintf("acc-%d", i)})
	}
	pts = append(pts, insights.TrajectoryPoint{PeriodEnd: "2025-12-30", Period: "FY", DebtAssets: f(9)})
	// The fourth quarter of 2024 came from the annual report; the others record no form (rows
	// written before the form column) and make no claim.
	pts[7].Form, pts[7].FiscalYear = "10-K", 2024
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
	if q4 := got[5]; q4.Period != "Q4" || q4.Form != "10-K" || !q4.FromAnnualFiling || q4.Label != "Q4 2024" || !strings.Contains(q4.Note, "FY2024") {
		t.Fatalf("the 10-K's quarter read back: %+v", q4)
	}
	if q := got[6]; q.Form != "" || q.FromAnnualFiling || q.Note != "" || q.Label != "Q1 ending "+pts[8].PeriodEnd {
		t.Fatalf("a quarter without a form: %+v", q)
	}
}

// TestSpoolOfAKilledProcessWithUnwrittenPlaces: a process killed while appending leaves its mapped
// segment at full size, with zeros where appends had taken a place but not yet copied, and a line cut
// by the kill. The next writer cuts the zeros off, passes over them and the cut line, and ships every
// complete line exactly once.
func TestSpoolOfAKilledProcessWithUnwrittenPlaces(t *testing.T) {
	t.Parallel()
	db := setup(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := newWriter(t, db, dir, 0, 100, time.Hour) // takes slot-0
	dead, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: dir, BatchSize: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		dead.Record(event(i))
	}
	dead.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "slot-1", "*.log"))
	if len(segs) != 1 {
		t.Fatalf("segments of the dead slot: %v", segs)
	}
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	// Rebuild the segment as the kill would have left it: lines 0-9, a place never written, lines
	// 10-19, a line cut short then zeros, lines 20-29, and zeros to the segment's full size (16 MiB).
	var seg []byte
	for _, l := range lines[:10] {
		seg = append(seg, l...)
	}
	seg = append(seg, make([]byte, 173)...)
	for _, l := range lines[10:20] {
		seg = append(seg, l...)
	}
	seg = append(seg, lines[29][:40]...) // the start of a line never finished
	seg = append(seg, make([]byte, 90)...)
	for _, l := range lines[20:30] {
		seg = append(seg, l...)
	}
	seg = append(seg, make([]byte, analytics.SegmentBytes-len(seg))...)
	if err := os.WriteFile(segs[0], seg, 0o600); err != nil {
		t.Fatal(err)
	}
	go live.Run(ctx)
	live.Record(event(30))
	if err := live.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); n != 31 {
		t.Fatalf("%d events shipped, want the killed process's 30 (each once) and the live one", n)
	}
	if n := count(t, db, "SELECT toUInt64(uniqExact(request_id)) FROM "+db.Name+".usage_events"); n != 31 {
		t.Fatalf("%d distinct events shipped, want 31", n)
	}
	if st := live.Stats(); st.PendingBytes != 0 || st.Corrupt != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestIntervalShipsWhatWasPending: an interval's shipping stops once it has shipped the bytes that were
// pending when it began (whole batches: the batch that reaches the budget is sent whole); what was
// recorded after waits for the next interval, and a Flush ships everything.
func TestIntervalShipsWhatWasPending(t *testing.T) {
	t.Parallel()
	db := setup(t)
	w := newWriter(t, db, t.TempDir(), 0, 10, time.Hour) // not running: the test ships
	ctx := context.Background()
	for i := range 35 {
		w.Record(event(i))
	}
	budget := w.Stats().PendingBytes // what an interval starting now would ship
	for i := 35; i < 100; i++ {
		w.Record(event(i)) // recorded "while it ships"
	}
	if err := w.ShipBudget(ctx, budget); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Written != 40 { // four batches of 10: the fourth reaches the budget
		t.Fatalf("after the interval's shipping: %+v, want 40 written", st)
	}
	if n := count(t, db, "SELECT toUInt64(count()) FROM "+db.Name+".usage_events"); n != 40 {
		t.Fatalf("%d rows in ClickHouse, want 40", n)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go w.Run(runCtx)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Written != 100 || st.PendingBytes != 0 {
		t.Fatalf("after Flush: %+v, want 100 written", st)
	}
}

// Every column of every row is the event recorded, across batches that reuse the shipper's buffers (its
// columns are slices of the journal's read buffer until the insert copies them), with fields that take
// the escaped path of the spool format.
func TestShippedRowsAreTheRecordedEvents(t *testing.T) {
	t.Parallel()
	db := setup(t)
	w, ctx := runningWriter(t, db, 7) // 7 events a batch: 9 batches
	at := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	plans := []string{"free", "pro", "enterprise"}
	var want []string
	for i := range 60 {
		e := account.UsageEvent{RequestID: fmt.Sprintf("req-%03d-%s", i, bytes.Repeat([]byte{byte('a' + i%26)}, i%40)),
			KeyID: fmt.Sprintf("key-%d", i%5), UserID: fmt.Sprintf("user-%d", i%3), KeyPrefix: fmt.Sprintf("shr_%08d", i%5),
			Method: "GET", Route: fmt.Sprintf("/api/t\u00e9st/%d\t\"q\"", i%4), Status: 200 + i%3*100, Tokens: i % 7, Overage: i % 2,
			Latency: time.Duration(i*37) * time.Microsecond, Time: at.Add(time.Duration(i*1237) * time.Millisecond),
			Plan: plans[i%3]}
		if e.Status == 400 {
			e.ErrorCode = "VALIDATION_ERROR"
		}
		w.Record(e)
		want = append(want, fmt.Sprintf("%s|%s|%s|%s|%s|%s|%d|%d|%d|%d|%s|%d|%s|%s", e.RequestID, e.KeyID, e.UserID, e.KeyPrefix,
			e.Method, e.Route, e.Status, e.Tokens, e.Overage, e.Latency.Microseconds(), e.Time.Truncate(time.Second).Format(time.DateTime),
			e.Time.UnixMilli(), e.Plan, e.ErrorCode))
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Conn.Query(ctx, "SELECT request_id, key_id, user_id, key_prefix, method, route, status, tokens, overage, latency_us, "+
		"toString(ts, 'UTC'), ts_ms, plan, error_code FROM "+db.Name+".usage_events ORDER BY ts_ms")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var rid, kid, uid, kp, meth, route, ts, plan, code string
		var status uint16
		var tokens, overage uint32
		var lat, ms uint64
		if err := rows.Scan(&rid, &kid, &uid, &kp, &meth, &route, &status, &tokens, &overage, &lat, &ts, &ms, &plan, &code); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s|%s|%d|%d|%d|%d|%s|%d|%s|%s", rid, kid, uid, kp, meth, route, status, tokens, overage, lat, ts, ms, plan, code))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// Recent requests read only the rows from the second of the limit-th newest on: they are the newest of
// all, in order, also when that second holds more rows than the limit takes.
func TestRecentRequestsAreTheNewestOfAll(t *testing.T) {
	t.Parallel()
	db := setup(t)
	w, ctx := runningWriter(t, db, 100)
	now := time.Now().UTC()
	add := func(id string, when time.Time) {
		w.Record(account.UsageEvent{RequestID: id, KeyID: "k", UserID: "uw", Method: "GET", Route: "/r", Status: 200, Tokens: 1, Time: when})
	}
	for i := range 3 {
		add(fmt.Sprintf("now-%d", i), now.Add(-time.Duration(3-i)*time.Second))
	}
	second := now.Add(-2 * time.Hour).Truncate(time.Second)
	for i := range 5 { // one second, 100 ms apart
		add(fmt.Sprintf("2h-%d", i), second.Add(time.Duration(i)*100*time.Millisecond))
	}
	for i := range 4 {
		add(fmt.Sprintf("3d-%d", i), now.Add(-72*time.Hour+time.Duration(i)*time.Second))
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	r := analytics.UsageReader{DB: db}
	for _, c := range []struct {
		limit int
		want  []string
	}{
		{2, []string{"now-2", "now-1"}},                          // the last 10 s
		{5, []string{"now-2", "now-1", "now-0", "2h-4", "2h-3"}}, // the last day
		{10, []string{"now-2", "now-1", "now-0", "2h-4", "2h-3", "2h-2", "2h-1", "2h-0", "3d-3", "3d-2"}},
		{50, nil}, // all 12
	} {
		got, err := r.RecentRequests(ctx, "uw", c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, q := range got {
			ids = append(ids, q.RequestID)
		}
		if c.want == nil {
			if len(ids) != 12 || ids[11] != "3d-0" {
				t.Fatalf("limit %d: %v", c.limit, ids)
			}
			continue
		}
		if fmt.Sprint(ids) != fmt.Sprint(c.want) {
			t.Fatalf("limit %d: %v, want %v", c.limit, ids, c.want)
		}
	}
}
