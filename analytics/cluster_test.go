package analytics_test

import (
	"bytes"
	"context"
	"errors"
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

// Cluster mode runs on real processes: a ZooKeeper and two ClickHouse replicas of one shard
// (testsvc.StartClickHouseCluster). Tests that stop a server start a cluster of their own.

// openOn opens a database through one replica (i), or through every replica (i < 0: the first that
// answers), in cluster mode.
func openOn(t *testing.T, c *testsvc.ClickHouseCluster, i int, name string) *analytics.DB {
	t.Helper()
	url := c.URL(name)
	if i >= 0 {
		url = c.Replicas[i].ClickHouseURL(name)
	}
	db, err := analytics.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	db.Cluster = c.Name
	t.Cleanup(func() { db.Close() })
	return db
}

// syncReplica waits until a replica has fetched every part the others have.
func syncReplica(t *testing.T, db *analytics.DB, tables ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tb := range tables {
		if err := retry(ctx, func() error { return db.Conn.Exec(ctx, "SYSTEM SYNC REPLICA "+db.Name+"."+tb) }); err != nil {
			t.Fatalf("sync %s: %v", tb, err)
		}
	}
}

// retry runs f until it succeeds or ctx ends (a replica that just started is read-only until its
// ZooKeeper session is up; a pooled connection to a stopped server fails once).
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// flush ships the writer's spool, retrying until it succeeds (bounded).
func flush(t *testing.T, w *analytics.UsageWriter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := retry(ctx, func() error { return w.Flush(ctx) }); err != nil {
		t.Fatalf("flush: %v (stats %+v)", err, w.Stats())
	}
}

func runWriter(t *testing.T, w *analytics.UsageWriter) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func migrate(t *testing.T, c *testsvc.ClickHouseCluster, db *analytics.DB) []string {
	t.Helper()
	applied, err := db.Migrate(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	return applied
}

// userRequests counts the distinct requests of user u1 in a table of one replica (the local table:
// what that replica holds, not what a Distributed read would gather from the others).
func userRequests(t *testing.T, db *analytics.DB, table string) uint64 {
	t.Helper()
	return count(t, db, "SELECT toUInt64(uniqExact(request_id)) FROM "+db.Name+"."+table+" WHERE user_id = 'u1'")
}

func TestClusterUsageWrittenThroughOneReplicaIsReadFromTheOther(t *testing.T) {
	t.Parallel()
	c, name := testsvc.ClickHouseClusterDB(t)
	r1, r2 := openOn(t, c, 0, name), openOn(t, c, 1, name)
	files, _ := filepath.Glob("migrations/*.sql")
	if applied := migrate(t, c, r1); len(applied) != len(files)+2 || len(files) == 0 { // and the code migrations: 006, the re-key (rekey.go), and 007, the chained views (chain.go)
		t.Fatalf("applied %v of %v", applied, files)
	}
	// Idempotent from either replica: schema_migrations is replicated too.
	syncReplica(t, r2, "schema_migrations")
	if again := migrate(t, c, r2); len(again) != 0 {
		t.Fatalf("migrate through the other replica applied %v", again)
	}
	if again := migrate(t, c, r1); len(again) != 0 {
		t.Fatalf("second migrate applied %v", again)
	}
	engines := map[string]string{}
	rows, err := r2.Conn.Query(context.Background(), "SELECT name, engine FROM system.tables WHERE database = ?", name)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n, e string
		if err := rows.Scan(&n, &e); err != nil {
			t.Fatal(err)
		}
		engines[n] = e
	}
	rows.Close()
	want := map[string]string{"schema_migrations": "ReplicatedMergeTree", "usage_events": "Distributed", "usage_events_local": "ReplicatedMergeTree",
		"trajectory": "Distributed", "trajectory_local": "ReplicatedReplacingMergeTree"}
	for _, agg := range []string{"usage_route_hourly", "usage_route_daily", "usage_key_hourly", "usage_key_daily", "usage_hourly", "usage_quota_daily"} {
		want[agg], want[agg+"_local"] = "Distributed", "ReplicatedAggregatingMergeTree"
		if agg == "usage_hourly" || agg == "usage_quota_daily" {
			want[agg+"_mv"] = "MaterializedView" // over usage_events_local
		} else {
			want[agg+"_chained_mv"] = "MaterializedView" // over usage_hourly_mv's rows (migration 007)
		}
	}
	if fmt.Sprint(engines) != fmt.Sprint(want) {
		t.Fatalf("tables on the second replica: %v, want %v", engines, want)
	}

	w := newWriter(t, r1, t.TempDir(), 0, 100, time.Hour)
	runWriter(t, w)
	day1 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const n = 250
	for i := range n {
		e := event(i)
		e.Time = day1.Add(time.Duration(i) * time.Minute * 10) // 200 on the 20th, 50 on the 21st (UTC)
		if i%50 == 0 {
			e.Status = 500
		}
		w.Record(e)
	}
	flush(t, w)
	syncReplica(t, r2, "usage_events_local")
	if got := userRequests(t, r2, "usage_events_local"); got != n {
		t.Fatalf("the second replica holds %d requests, want %d", got, n)
	}
	days, err := analytics.UsageReader{DB: r2}.DailyUsage(context.Background(), "u1", day1.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantDays := []account.DailyUsage{{Date: "2026-11-20", Requests: 84, Tokens: 84, Errors: 2}, {Date: "2026-11-21", Requests: 144, Tokens: 144, Errors: 3},
		{Date: "2026-11-22", Requests: 22, Tokens: 22, Errors: 0}}
	if fmt.Sprint(days) != fmt.Sprint(wantDays) {
		t.Fatalf("daily usage read from the second replica: %+v, want %+v", days, wantDays)
	}
	recent, err := analytics.UsageReader{DB: r2}.RecentRequests(context.Background(), "u1", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 3 || recent[0].RequestID != "r-0249" || recent[2].RequestID != "r-0247" {
		t.Fatalf("recent from the second replica: %+v", recent)
	}
	// The aggregates: the view on the replica that took the insert aggregated it once; the second
	// replica holds the same through replication of the aggregate table.
	syncReplica(t, r2, "usage_route_hourly_local")
	if got := count(t, r2, "SELECT toUInt64(countMerge(requests)) FROM "+r2.Name+".usage_route_hourly_local"); got != n {
		t.Fatalf("the second replica's aggregate counts %d requests, want %d", got, n)
	}
	routes, err := analytics.UsageReader{DB: r2}.RouteUsage(context.Background(), account.UsageRange{From: day1.Add(-time.Hour), To: day1.Add(72 * time.Hour)}, "", "")
	if err != nil || len(routes) != 1 || routes[0].Requests != n || routes[0].Errors5xx != 5 {
		t.Fatalf("routes read from the second replica: %+v, %v", routes, err)
	}
}

func TestClusterTrajectoryReplacesOnEveryReplica(t *testing.T) {
	t.Parallel()
	c, name := testsvc.ClickHouseClusterDB(t)
	r1, r2 := openOn(t, c, 0, name), openOn(t, c, 1, name)
	migrate(t, c, r1)
	ctx := context.Background()
	f := func(v float64) *float64 { return &v }
	var pts []insights.TrajectoryPoint
	for i := range 10 {
		end := time.Date(2023, time.Month(3*(i%4)+3), 28, 0, 0, 0, 0, time.UTC).AddDate(i/4, 0, 0)
		pts = append(pts, insights.TrajectoryPoint{PeriodEnd: end.Format("2006-01-02"), Period: fmt.Sprintf("Q%d", i%4+1),
			DebtAssets: f(0.1 + float64(i)/100), CashAssets: f(0.2), Source: "filing", Accession: fmt.Sprintf("acc-%d", i)})
	}
	if err := (analytics.Trajectory{DB: r1}).PutTrajectory(ctx, "AAPL", pts); err != nil {
		t.Fatal(err)
	}
	// The whole series again through the other replica, the latest quarter changed: every quarter is
	// replaced, none duplicated, whichever replica answers.
	pts[9].DebtAssets, pts[9].Accession = f(0.55), "acc-9b"
	if err := (analytics.Trajectory{DB: r2}).PutTrajectory(ctx, "AAPL", pts); err != nil {
		t.Fatal(err)
	}
	for i, db := range []*analytics.DB{r1, r2} {
		syncReplica(t, db, "trajectory_local")
		got, err := analytics.Trajectory{DB: db}.Trajectory(ctx, "AAPL", 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 8 || got[7].PeriodEnd != pts[9].PeriodEnd || *got[7].DebtAssets != 0.55 || got[7].Accession != "acc-9b" ||
			got[0].PeriodEnd != pts[2].PeriodEnd || *got[0].DebtAssets != *pts[2].DebtAssets {
			t.Fatalf("trajectory read from replica %d: %+v", i+1, got)
		}
		if n := count(t, db, "SELECT toUInt64(count()) FROM "+name+".trajectory FINAL WHERE symbol = 'AAPL'"); n != 10 {
			t.Fatalf("replica %d: %d quarters, want 10", i+1, n)
		}
	}
}

func TestClusterReplicaDownLosesNothing(t *testing.T) {
	t.Parallel()
	c := testsvc.MustClickHouseCluster(t, 2)
	const name = "shariah"
	both := openOn(t, c, -1, name) // both replicas, the first first: what SHARIAH_CLICKHOUSE_URL would name
	migrate(t, c, both)
	w := newWriter(t, both, t.TempDir(), 0, 100, time.Hour)
	runWriter(t, w)
	for i := range 100 {
		w.Record(event(i))
	}
	flush(t, w)

	c.Replicas[0].Stop() // replica 1 down: writes go to replica 2
	for i := 100; i < 200; i++ {
		w.Record(event(i))
	}
	flush(t, w)
	f := 0.3
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := analytics.Trajectory{DB: both}
	if err := retry(ctx, func() error {
		return tr.PutTrajectory(ctx, "MSFT", []insights.TrajectoryPoint{{PeriodEnd: "2025-09-30", Period: "Q1", DebtAssets: &f}})
	}); err != nil {
		t.Fatal(err)
	}
	r2 := openOn(t, c, 1, name)
	if got := userRequests(t, r2, "usage_events_local"); got != 200 {
		t.Fatalf("replica 2 holds %d requests with replica 1 down, want 200", got)
	}

	if err := c.Replicas[0].Start(); err != nil {
		t.Fatal(err)
	}
	r1 := openOn(t, c, 0, name)
	syncReplica(t, r1, "usage_events_local", "trajectory_local")
	if got := userRequests(t, r1, "usage_events_local"); got != 200 {
		t.Fatalf("replica 1 holds %d requests after its restart, want 200", got)
	}
	days, err := analytics.UsageReader{DB: r1}.DailyUsage(ctx, "u1", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(days) != 1 || days[0].Requests != 200 {
		t.Fatalf("daily usage from replica 1: %+v %v", days, err)
	}
	got, err := analytics.Trajectory{DB: r1}.Trajectory(ctx, "MSFT", 8)
	if err != nil || len(got) != 1 || *got[0].DebtAssets != 0.3 {
		t.Fatalf("trajectory written while replica 1 was down, read from it: %+v %v", got, err)
	}
}

func TestClusterTotalOutageIsSpooledAndShipped(t *testing.T) {
	t.Parallel()
	c := testsvc.MustClickHouseCluster(t, 2)
	const name = "shariah"
	both := openOn(t, c, -1, name)
	migrate(t, c, both)
	w := newWriter(t, both, t.TempDir(), 0, 100, time.Hour)
	runWriter(t, w)
	for _, r := range c.Replicas {
		r.Stop()
	}
	for i := range 150 {
		w.Record(event(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.Flush(ctx); err == nil {
		t.Fatal("shipping with every replica down succeeded")
	}
	if st := w.Stats(); st.Status != "spooling" || st.PendingBytes == 0 || st.Dropped != 0 || st.Written != 0 {
		t.Fatalf("while every replica is down: %+v", st)
	}
	for _, r := range c.Replicas {
		if err := r.Start(); err != nil {
			t.Fatal(err)
		}
	}
	flush(t, w)
	if st := w.Stats(); st.Status != "ok" || st.PendingBytes != 0 || st.Written != 150 {
		t.Fatalf("after the outage: %+v", st)
	}
	for i := range c.Replicas {
		db := openOn(t, c, i, name)
		syncReplica(t, db, "usage_events_local")
		if got := userRequests(t, db, "usage_events_local"); got != 150 {
			t.Fatalf("replica %d holds %d requests after the outage, want 150", i+1, got)
		}
	}
}

// TestClusterRenamedAtRunTimeSpoolsUsage: the servers' configuration loses the cluster while the service
// runs (an operator's edit of remote_servers, reloaded without a restart): the Distributed tables answer
// "cluster not found", so usage is held in the spool as in an outage, and shipped once the cluster is back.
func TestClusterRenamedAtRunTimeSpoolsUsage(t *testing.T) {
	t.Parallel()
	c := testsvc.MustClickHouseCluster(t, 2)
	const name = "shariah"
	both := openOn(t, c, -1, name)
	migrate(t, c, both)
	w := newWriter(t, both, t.TempDir(), 0, 100, time.Hour)
	runWriter(t, w)
	rename := func(from, to string) {
		t.Helper()
		for _, r := range c.Replicas {
			path := filepath.Join(r.Dir, "config.d", "extra.xml")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			before, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(from+">"), []byte(to+">")), 0o644); err != nil {
				t.Fatal(err)
			}
			// The server compares modification times in whole seconds: two edits within one second
			// would look like one.
			if at := before.ModTime().Add(time.Second); time.Now().Before(at) {
				if err := os.Chtimes(path, at, at); err != nil {
					t.Fatal(err)
				}
			}
		}
		// ClickHouse rereads its configuration every few seconds.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, i := range []int{0, 1} {
			db := openOn(t, c, i, name)
			if err := retry(ctx, func() error {
				if n := count(t, db, "SELECT toUInt64(count()) FROM system.clusters WHERE cluster = '"+to+"'"); n == 0 {
					return errors.New("not reloaded")
				}
				return nil
			}); err != nil {
				t.Fatalf("replica %d never reloaded its configuration", i+1)
			}
		}
	}
	rename(c.Name, "renamed")
	for i := range 40 {
		w.Record(event(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := w.Flush(ctx)
	if err == nil || !strings.Contains(err.Error(), c.Name) {
		t.Fatalf("shipping through a Distributed table of an unknown cluster: %v", err)
	}
	if st := w.Stats(); st.Status != "spooling" || st.Dropped != 0 || st.PendingBytes == 0 {
		t.Fatalf("while the cluster is unknown: %+v", st)
	}
	if _, err := (analytics.UsageReader{DB: both}).DailyUsage(ctx, "u1", time.Time{}); err == nil {
		t.Fatal("a read through a Distributed table of an unknown cluster succeeded")
	}
	if err := both.CheckCluster(ctx); !errors.Is(err, analytics.ErrUnknownCluster) {
		t.Fatalf("check: %v", err)
	}
	rename("renamed", c.Name)
	flush(t, w)
	if st := w.Stats(); st.Status != "ok" || st.Written != 40 || st.PendingBytes != 0 {
		t.Fatalf("after the cluster is back: %+v", st)
	}
	if got := userRequests(t, both, "usage_events"); got != 40 {
		t.Fatalf("%d requests after the cluster is back, want 40", got)
	}
}

func TestClusterUnknownToTheServerIsRefused(t *testing.T) {
	t.Parallel()
	db, err := analytics.Open(testsvc.ClickHouseDB(t)) // a single server: no clusters at all
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Cluster = "nope"
	_, err = db.Migrate(context.Background())
	if !errors.Is(err, analytics.ErrUnknownCluster) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("migrate with an unknown cluster: %v", err)
	}
	if n := count(t, db, "SELECT toUInt64(count()) FROM system.databases WHERE name = '"+db.Name+"'"); n != 0 {
		t.Fatal("the database was created anyway")
	}
	c, _ := testsvc.ClickHouseClusterDB(t)
	other := openOn(t, c, 1, "unused")
	other.Cluster = "typo_cluster"
	if err := other.CheckCluster(context.Background()); !errors.Is(err, analytics.ErrUnknownCluster) || !strings.Contains(err.Error(), testsvc.ClusterName) {
		t.Fatalf("check of a cluster the server lacks: %v (want the clusters it has listed)", err)
	}
	other.Cluster = c.Name
	if err := other.CheckCluster(context.Background()); err != nil {
		t.Fatal(err)
	}
}
