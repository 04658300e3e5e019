package main

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
)

// TestRunResumesAfterWorkerKilled: a worker process is killed with SIGKILL mid-run while a second
// worker is idle; the run reads stalled once the dead worker's heartbeat is missing, then the second
// worker's reclaim loop takes it over when the lease expires (by design within 15 s of the kill; the
// test waits up to 60 s and logs the figures) and finishes it, each symbol written exactly once.
func TestRunResumesAfterWorkerKilled(t *testing.T) {
	if out, err := command([]string{"load", "--default", "--problems", "0"}).CombinedOutput(); err != nil {
		t.Fatalf("load: %v %s", err, out)
	}
	ctx := context.Background()
	rc, err := sredis.Open(redisSrv.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.NewQueue(redisSrv.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ref := sredis.NewRefStore(rc)
	runs := sredis.NewRunStore(rc)
	bulk := &shariah.Bulk{Runs: runs, Ref: ref, Queue: q,
		Screener: &shariah.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: rs}}
	owner := shariah.Caller{UserID: "crash-test"}
	run, err := bulk.StartRun(ctx, owner, "SP500", 0, true, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	worker := func(pause string) *exec.Cmd {
		c := command([]string{"worker"}, "SHARIAH_BULK_PAUSE="+pause, "SHARIAH_BULK_CONCURRENCY=1", "SHARIAH_RESCREEN_SCHEDULES=", "SHARIAH_LOG_LEVEL=warn")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := worker("300ms")
	defer first.Process.Kill()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, _, _ := runs.Run(ctx, run.ID)
		if r.Processed >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first worker made no progress: %+v", r)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A second worker, idle: the task is the first one's. Wait until it has registered.
	second := worker("0s")
	defer func() { _ = second.Process.Signal(syscall.SIGTERM); _ = second.Wait() }()
	deadline = time.Now().Add(30 * time.Second)
	for up := false; !up; {
		servers, _ := q.Inspector.Servers()
		for _, sv := range servers {
			up = up || sv.PID == second.Process.Pid
		}
		if up {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second worker did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
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
	// The run reads stalled, then running again (taken over), then completes.
	var stalledAt, resumedAt time.Time
	deadline = time.Now().Add(60 * time.Second)
	var final shariah.Run
	for {
		final, err = bulk.Get(ctx, owner, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case final.Status == shariah.RunStalled && stalledAt.IsZero():
			stalledAt = time.Now()
		case final.Status != shariah.RunStalled && !stalledAt.IsZero() && resumedAt.IsZero():
			resumedAt = time.Now()
		}
		if final.Status == shariah.RunCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not complete within 60 s of the kill: %+v (stalled seen: %v)", final, !stalledAt.IsZero())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if stalledAt.IsZero() || resumedAt.IsZero() {
		t.Fatalf("the run never read stalled before it was resumed (stalled at %v, resumed at %v)", stalledAt, resumedAt)
	}
	t.Logf("killed worker: run stalled after %v, taken over after %v, completed after %v",
		stalledAt.Sub(killed).Round(10*time.Millisecond), resumedAt.Sub(killed).Round(10*time.Millisecond), time.Since(killed).Round(10*time.Millisecond))
	after, err := runs.Items(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != run.Total || final.Processed != run.Total {
		t.Fatalf("completed with %d items (processed %d), want %d", len(after), final.Processed, run.Total)
	}
	was := map[string]shariah.RunItem{}
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
