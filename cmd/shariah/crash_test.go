package main

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// TestRunResumesAfterWorkerKilled: a worker process is killed with SIGKILL mid-run while a second
// worker is idle; the run reads stalled once the dead worker's heartbeat is missing, then the second
// worker's reclaim loop takes it over when the lease expires (by design within 15 s of the kill; the
// test waits up to 60 s and logs the figures) and finishes it, each symbol written exactly once.
func TestRunResumesAfterWorkerKilled(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	if out, err := s.command([]string{"load", "--default", "--problems", "0"}).CombinedOutput(); err != nil {
		t.Fatalf("load: %v %s", err, out)
	}
	ctx := context.Background()
	bk, runs, q := bulkOf(t, s)
	owner := shariah.Caller{UserID: "crash-test"}
	run, err := bk.StartRun(ctx, owner, "SP500", 0, true, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	worker := func(pause string) *exec.Cmd {
		c := s.command([]string{"worker"}, "SHARIAH_BULK_PAUSE="+pause, "SHARIAH_BULK_CONCURRENCY=1", "SHARIAH_RESCREEN_SCHEDULES=", "SHARIAH_LOG_LEVEL=warn")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := worker("300ms")
	defer first.Process.Kill()
	waitFor(t, "the first worker to screen 3 symbols", func() bool {
		r, _, _ := runs.Run(ctx, run.ID)
		return r.Processed >= 3
	})
	// A second worker, idle: the task is the first one's. Wait until it has registered.
	second := worker("0s")
	defer func() { _ = second.Process.Signal(syscall.SIGTERM); _ = second.Wait() }()
	waitFor(t, "the second worker to register", func() bool {
		servers, _ := q.Inspector.Servers()
		for _, sv := range servers {
			if sv.PID == second.Process.Pid {
				return true
			}
		}
		return false
	})
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = first.Wait()
	before, err := runs.Items(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 3 || len(before) >= run.Total {
		t.Fatalf("%d of %d written before the kill", len(before), run.Total)
	}
	final, stalledAt, resumedAt := watchTakeover(t, bk, owner, run.ID)
	t.Logf("killed worker: run stalled after %v, taken over after %v, completed after %v",
		stalledAt.Sub(killed).Round(10*time.Millisecond), resumedAt.Sub(killed).Round(10*time.Millisecond), time.Since(killed).Round(10*time.Millisecond))
	after, err := runs.Items(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != run.Total || final.Processed != run.Total {
		t.Fatalf("completed with %d items (processed %d), want %d", len(after), final.Processed, run.Total)
	}
	was := map[string]bulk.Item{}
	for _, it := range before {
		was[it.Symbol] = it
	}
	for _, it := range after {
		if b, ok := was[it.Symbol]; ok && !b.Result.ScreenedAt.Equal(it.Result.ScreenedAt) {
			t.Fatalf("%s was screened again into the results after the resume", it.Symbol)
		}
	}
	t.Logf("%d symbols before the kill, %d after the resume", len(before), len(after)-len(before))
}

// watchTakeover follows a run whose worker was killed until it completes: it must read stalled, then
// running again (taken over by another worker), then completed, within 60 s.
func watchTakeover(t *testing.T, bk *bulk.Service, owner shariah.Caller, id string) (final bulk.Run, stalledAt, resumedAt time.Time) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for final.Status != bulk.Completed {
		var err error
		if final, err = bk.Get(context.Background(), owner, id); err != nil {
			t.Fatal(err)
		}
		switch {
		case final.Status == bulk.Stalled && stalledAt.IsZero():
			stalledAt = time.Now()
		case final.Status != bulk.Stalled && !stalledAt.IsZero() && resumedAt.IsZero():
			resumedAt = time.Now()
		}
		if final.Status != bulk.Completed && time.Now().After(deadline) {
			t.Fatalf("the run did not complete within 60 s of the kill: %+v (stalled seen: %v)", final, !stalledAt.IsZero())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if stalledAt.IsZero() || resumedAt.IsZero() {
		t.Fatalf("the run never read stalled before it was resumed (stalled at %v, resumed at %v)", stalledAt, resumedAt)
	}
	return final, stalledAt, resumedAt
}

// bulkOf is the bulk runner over the test Redis, with its run store and queue (closed by the test's end).
func bulkOf(t *testing.T, s *testEnv) (*bulk.Service, *sredis.RunStore, *jobs.Queue) {
	t.Helper()
	rc, err := sredis.Open(s.redis.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.NewQueue(s.redis.RedisURL(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	ref, runs := sredis.NewRefStore(rc), sredis.NewRunStore(rc)
	return &bulk.Service{Runs: runs, Ref: ref, Queue: q,
		Screener: &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: rs}}, runs, q
}
