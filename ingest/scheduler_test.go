package ingest_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/ingest"
	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
)

func TestSchedulerHealthRetriesAndLocks(t *testing.T) {
	t.Parallel()
	_, rc := redistest.Start(t)
	store := sredis.NewIngestStore(rc)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := ingest.NewScheduler(store, log)
	s.Backoff = 10 * time.Millisecond
	var attempts atomic.Int64
	release := make(chan struct{})
	if err := s.Add(ingest.Source{Name: "broken", Schedule: "@every 1h", Retries: 2, Run: func(ctx context.Context) (int, error) {
		attempts.Add(1)
		return 0, errors.New("upstream answered a truncated document")
	}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ingest.Source{Name: "fine", Schedule: "@every 1h", Run: func(ctx context.Context) (int, error) { return 7, nil }}); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}) // closed by the slow source once it runs, that is once its scheduler holds the lock
	if err := s.Add(ingest.Source{Name: "slow", Schedule: "@every 1h", Run: func(ctx context.Context) (int, error) {
		close(started)
		<-release
		return 1, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ingest.Source{Name: "nokey", Schedule: "@every 1h", Disabled: "SEC requires a User-Agent"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_ = s.RunOnce(ctx, "broken")
	_ = s.RunOnce(ctx, "fine")
	if attempts.Load() != 3 {
		t.Fatalf("broken source tried %d times, want 1 + 2 retries", attempts.Load())
	}
	// The slow source: a second run here, or in another process, is refused while it runs. The second
	// scheduler starts only once the first is inside the source (it takes the lock before running it),
	// so the lock is known to be held, whatever the load on the machine.
	done := make(chan error, 1)
	go func() { done <- s.RunOnce(ctx, "slow") }()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the first run of the slow source ended before running it: %v", err)
	}
	var otherRuns atomic.Int64
	other := ingest.NewScheduler(store, log)
	if err := other.Add(ingest.Source{Name: "slow", Schedule: "@every 1h", Run: func(ctx context.Context) (int, error) {
		otherRuns.Add(1)
		return 0, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := other.RunOnce(ctx, "slow"); !errors.Is(err, ingest.ErrBusy) || otherRuns.Load() != 0 {
		t.Fatalf("a second process ran the source while the first held it: %v, %d runs", err, otherRuns.Load())
	}
	if err := s.RunOnce(ctx, "slow"); !errors.Is(err, ingest.ErrBusy) {
		t.Fatalf("overlapping run in the same process: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	hs, err := store.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, h := range hs {
		by[h.Name] = h.Status
		switch h.Name {
		case "broken":
			if h.LastError != "upstream answered a truncated document" || h.Failures != 1 || h.LastSuccessAt != nil {
				t.Fatalf("broken health %+v", h)
			}
		case "fine":
			if h.Items != 7 || h.LastSuccessAt == nil || h.LagSeconds == nil {
				t.Fatalf("fine health %+v", h)
			}
		}
	}
	if by["broken"] != "failing" || by["fine"] != "ok" || by["slow"] != "ok" || by["nokey"] != "disabled" {
		t.Fatalf("statuses %v", by)
	}
}
