package jobs_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testsvc"
	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// TestRedisOpt: the service's URL form, read as rueidis reads it; on a cluster every address seeds
// asynq's cluster client.
func TestRedisOpt(t *testing.T) {
	t.Parallel()
	o, err := jobs.RedisOpt("redis://u:p@10.0.0.1:7000?addr=10.0.0.2:7001&addr=10.0.0.3:7002", true)
	co, ok := o.(jobs.ClusterOpt)
	c := co.RedisClusterClientOpt
	if err != nil || !ok || len(c.Addrs) != 3 || c.Addrs[0] != "10.0.0.1:7000" || c.Addrs[2] != "10.0.0.3:7002" || c.Username != "u" || c.Password != "p" {
		t.Fatalf("cluster: %#v %v", o, err)
	}
	if _, err := jobs.RedisOpt("redis://10.0.0.1:7000/2", true); err == nil {
		t.Fatal("a cluster URL naming database 2 was accepted")
	}
	o, err = jobs.RedisOpt("rediss://:secret@cache.example.com:6380/3", false)
	s, ok := o.(asynq.RedisClientOpt)
	if err != nil || !ok || s.Addr != "cache.example.com:6380" || s.DB != 3 || s.Password != "secret" || s.TLSConfig == nil || s.Network != "tcp" {
		t.Fatalf("single: %#v %v", o, err)
	}
	o, err = jobs.RedisOpt("unix:///run/redis.sock?db=1", false)
	if s, ok := o.(asynq.RedisClientOpt); err != nil || !ok || s.Network != "unix" || s.Addr != "/run/redis.sock" || s.DB != 1 {
		t.Fatalf("unix: %#v %v", o, err)
	}
	if _, err := jobs.RedisOpt("http://x", false); err == nil {
		t.Fatal("http URL accepted")
	}
}

// TestQueueAndWorkerOnRedisCluster: the queue and a worker on a three-master cluster, detected from
// the URL as the stores detect it: a bulk run and an ETF look-through complete, a second enqueue of
// a run is refused, and a waiting task is dropped.
func TestQueueAndWorkerOnRedisCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	cl := testsvc.MustRedisCluster(t, 3)
	rc := redistest.MustClient(t, cl.URL())
	if !sredis.IsCluster(rc) {
		t.Fatal("rueidis did not find a cluster")
	}
	redistest.LoadDefaultPack(t, rc)
	ctx := context.Background()
	q, err := jobs.NewQueue(cl.URL(), sredis.IsCluster(rc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	rs, _ := rules.Rulesets()
	ref, results := sredis.NewRefStore(rc), sredis.NewResultStore(rc)
	sc := &screening.Screener{Ref: ref, Results: results, Rulesets: rs}
	runs := sredis.NewRunStore(rc)
	bk := &bulk.Service{Runs: runs, Ref: ref, Queue: q, Screener: sc, Concurrency: 2}
	etfs := &etf.Service{Ref: ref, Screener: sc, Results: results, Catalogs: &catalog.Cache{Store: ref}}

	// A run queued before any worker runs: a second enqueue is refused, and a waiting task can be dropped.
	waiting, err := bk.StartRun(ctx, shariah.ServiceCaller, "DJIA", 0, false, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueueRun(ctx, waiting.ID); shariah.ErrorCode(err) != shariah.ECONFLICT {
		t.Fatalf("second enqueue: %v", err)
	}
	if err := q.DropRun(ctx, waiting.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Inspector.GetTaskInfo("bulk", waiting.ID); err == nil {
		t.Fatal("the dropped task is still queued")
	}
	if _, err := bk.Cancel(ctx, shariah.ServiceCaller, waiting.ID); err != nil {
		t.Fatal(err)
	}

	srv, mux, err := jobs.NewWorker(cl.URL(), true, 4, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	jobs.RegisterBulk(mux, bk)
	jobs.RegisterETF(mux, etfs)
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)

	run, err := bk.StartRun(ctx, shariah.ServiceCaller, "SP500", 0, true, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, ok, err := etf.AwaitScreening(ctx, func(ctx context.Context) error {
		return q.EnqueueETF(ctx, jobs.ETFPayload{Symbol: "SPUS", Ruleset: "spec"})
	}, results, "SPUS", "spec", start, 30*time.Second)
	if err != nil || !ok || len(r.Holdings) == 0 {
		t.Fatalf("ETF look-through on the cluster: %v %v %+v", ok, err, r)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, _, err := runs.Run(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == bulk.Completed {
			items, err := runs.Items(ctx, run.ID)
			if err != nil || len(items) != run.Total || got.Processed != run.Total {
				t.Fatalf("completed with %d items, processed %d, of %d: %v", len(items), got.Processed, run.Total, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not complete on the cluster: %+v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestEnqueueRightAfterFailover: the master holding the bulk queue's slot ({bulk}) is killed with
// SIGKILL; once its replica has taken over and every node reports cluster_state:ok, the very first
// enqueue succeeds: the queue's cluster client reloads its slot map when it cannot reach the dead
// master (ClusterOpt) and its retries of the same command find the new master. Without that reload
// go-redis keeps the dead master's address until a MOVED answer or its 10 s refresh. "idle": no
// enqueue during the failover; "busy": enqueues every 20 ms from the kill on (each failure reloads
// the slot map, a reload at most every 200 ms: the first enqueue after cluster_state:ok must not be
// refused by a reload throttled just before it). The time from cluster_state:ok to the first
// success is logged.
func TestEnqueueRightAfterFailover(t *testing.T) {
	for _, busy := range []bool{false, true} {
		name := "idle"
		if busy {
			name = "busy"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() {
				t.Skip("starts a Redis Cluster")
			}
			cl := testsvc.MustRedisClusterReplicated(t)
			q, err := jobs.NewQueue(cl.URL(), true)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(q.Close)
			ctx := context.Background()
			if err := q.EnqueueRun(ctx, "before-the-kill"); err != nil {
				t.Fatal(err)
			}
			victim, err := cl.MasterOf("asynq:{bulk}")
			if err != nil {
				t.Fatal(err)
			}
			if err := cl.KillMaster(victim); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			stopped := make(chan struct{})
			failed := 0
			go func() {
				defer close(stopped)
				for i := 0; busy; i++ {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					if err := q.EnqueueRun(ctx, fmt.Sprintf("during-%d", i)); err != nil {
						failed++
					}
				}
			}()
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := cl.WaitFailover(wctx, victim); err != nil {
				t.Fatal(err)
			}
			close(stop)
			<-stopped
			ok := time.Now()
			err = q.EnqueueRun(ctx, "after-the-failover")
			took := time.Since(ok)
			if err != nil {
				t.Fatalf("the first enqueue after cluster_state:ok failed after %v: %v", took.Round(time.Millisecond), err)
			}
			t.Logf("%s: the first enqueue after cluster_state:ok succeeded in %v (%d enqueues failed during the failover)", name, took.Round(time.Millisecond), failed)
		})
	}
}

// TestEnqueueOnHungQueueMaster: the master holding the bulk queue's slot stopped with SIGSTOP (its
// connections open and silent): an enqueue made for a request (redis.WithCallTimeout) fails with an
// EUNAVAILABLE error (503 at the edge) instead of holding the request for go-redis's read
// timeout and retries; after SIGCONT the next enqueue succeeds. The time to the failure is logged
// (the 10 s bound is a failure bound: the call hung).
func TestEnqueueOnHungQueueMaster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	cl := testsvc.MustRedisCluster(t, 3)
	q, err := jobs.NewQueue(cl.URL(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	if err := q.EnqueueRun(context.Background(), "before"); err != nil {
		t.Fatal(err)
	}
	victim, err := cl.MasterOf("asynq:{bulk}")
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			victim.Signal(syscall.SIGCONT)
		}
	}()
	res := make(chan error, 1)
	start := time.Now()
	go func() { res <- q.EnqueueRun(sredis.WithCallTimeout(context.Background(), time.Second), "while-hung") }()
	select {
	case err = <-res:
	case <-time.After(10 * time.Second):
		t.Fatal("an enqueue on a hung master did not return within 10 s")
	}
	took := time.Since(start)
	if shariah.ErrorCode(err) != shariah.EUNAVAILABLE {
		t.Fatalf("enqueue on a hung master: %v, want %s (503)", err, shariah.EUNAVAILABLE)
	}
	t.Logf("an enqueue on the hung master failed after %v: %v", took.Round(time.Millisecond), err)
	if err := victim.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	if err := q.EnqueueRun(sredis.WithCallTimeout(context.Background(), time.Second), "after"); err != nil {
		t.Fatalf("enqueue after SIGCONT: %v", err)
	}
}
