package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

func TestParseSchedules(t *testing.T) {
	t.Parallel()
	got, err := jobs.ParseSchedules(" sp500=0 2 * * * ; DJIA=@daily;")
	if err != nil || got["SP500"] != "0 2 * * *" || got["DJIA"] != "@daily" || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"SP500", "=0 2 * * *", "SP500=not a cron"} {
		if _, err := jobs.ParseSchedules(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestRescreensNeverOverlap: a schedule firing every second, with no worker to finish the runs,
// queues one run and skips the later triggers while it is active.
func TestRescreensNeverOverlap(t *testing.T) {
	t.Parallel()
	srv, rc := redistest.StartWithDefaultPack(t)
	ctx := context.Background()
	ref := sredis.NewRefStore(rc)
	rs, _ := rules.Rulesets()
	q, err := jobs.NewQueue(srv.RedisURL(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	runs := sredis.NewRunStore(rc)
	bk := &bulk.Service{Runs: runs, Ref: ref, Queue: q, Screener: &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: rs}}
	resc, err := jobs.NewRescreens(bk, map[string]string{"DJIA": "@every 1s"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 3500*time.Millisecond)
	defer cancel()
	_ = resc.Run(rctx)
	list, total, err := runs.Runs(ctx, bulk.Filter{IndexName: "DJIA"}, 0, 10)
	if err != nil || total != 1 || list[0].Trigger != "schedule" || list[0].Status != bulk.Queued {
		t.Fatalf("runs after three triggers: %d %+v %v", total, list, err)
	}
	// The task is in asynq under the run's id: a second enqueue of the same run is refused.
	if err := q.EnqueueRun(ctx, list[0].ID); shariah.ErrorCode(err) != shariah.ECONFLICT {
		t.Fatalf("second enqueue: %v", err)
	}
}
