package bulk

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
)

// A run is executed under a lease: a short-lived claim in the run store that the executing worker
// renews every Lease/5 (its heartbeat). The lease's time left is read with the run, on the store's
// clock, so no two machines' clocks are compared. A running run whose lease has not been renewed for
// StallAfter reads as stalled; when the lease expires, the reclaim loop of any worker (Reclaim) takes
// the run over and resumes it where it stopped. With the defaults a dead worker's run reads stalled
// after 5 s and is resumed within 12 s (10 s lease, 2 s reclaim tick), instead of the queue's own
// recovery (asynq: 30 s lease, checked every minute).
const (
	DefaultLease        = 10 * time.Second
	DefaultStallAfter   = 5 * time.Second
	DefaultReclaimEvery = 2 * time.Second
	// reclaimGiveUp is how many takeovers of one run in a row may fail in a worker before the run is
	// marked failed (a run that cannot make progress must not be retried for ever).
	reclaimGiveUp = 25
	// reclaimWindow bounds the runs the reclaim loop reads by their creation time.
	reclaimWindow = 48 * time.Hour
)

func (b *Service) lease() time.Duration {
	if b.Lease > 0 {
		return b.Lease
	}
	return DefaultLease
}

func (b *Service) stallAfter() time.Duration {
	if b.StallAfter > 0 && b.StallAfter < b.lease() {
		return b.StallAfter
	}
	return min(DefaultStallAfter, b.lease()/2)
}

var errLeaseLost = errors.New("run lease lost: another worker took the run over")

// Execute runs a queued or interrupted run to its end if no live worker is executing it: it takes
// the run's lease (or returns nil at once when another worker holds it, or the run is deleted or
// finished), renews it while it works, and stops (returning nil) if it loses it, which happens
// only when it stopped renewing long enough for another worker to take the run over.
func (b *Service) Execute(ctx context.Context, id string) error {
	r, ok, err := b.Runs.Run(ctx, id)
	if err != nil {
		return err
	}
	if !ok || r.Finished() {
		return nil // deleted, cancelled or already done: nothing to do
	}
	token := uuid.NewString()
	got, err := b.Runs.AcquireLease(ctx, id, token, b.lease())
	if err != nil || !got {
		return err
	}
	ctx, stop := context.WithCancelCause(ctx)
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		t := time.NewTicker(b.lease() / 5)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if held, err := b.Runs.RenewLease(ctx, id, token, b.lease()); err == nil && !held {
					stop(errLeaseLost)
					return
				}
			}
		}
	}()
	err = b.execute(ctx, r)
	lost := errors.Is(context.Cause(ctx), errLeaseLost)
	stop(nil)
	<-beat
	if lost {
		return nil
	}
	_ = b.Runs.ReleaseLease(context.WithoutCancel(ctx), id, token)
	return err
}

// Reclaim is a worker's reclaim loop: every DefaultReclaimEvery it looks for running runs that no
// worker holds a lease on (their worker died, froze or shut down mid-run) and resumes them, a few at
// a time. Any number of workers may run it: the lease lets one of them take each run. It returns when
// ctx ends, after the runs it resumed have stopped.
func (b *Service) Reclaim(ctx context.Context, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	active := map[string]bool{}
	failures := map[string]int{}
	slots := make(chan struct{}, 2) // runs resumed at once by this worker
	t := time.NewTicker(DefaultReclaimEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		// Runs created in the last two days (the history keeps every run; older stuck runs are left to the
		// queue's own recovery of their task, which resumes them the same way).
		runs, _, err := b.Runs.Runs(ctx, Filter{Status: Running, Since: b.now().Add(-reclaimWindow)}, 0, 1000)
		if err != nil {
			continue // the store is unavailable: the next tick tries again
		}
		for _, r := range runs {
			mu.Lock()
			busy := active[r.ID]
			mu.Unlock()
			if r.LeaseLeft >= 0 || busy {
				continue
			}
			select {
			case slots <- struct{}{}:
			default:
				continue // this worker is busy resuming others; another worker or the next tick will
			}
			mu.Lock()
			active[r.ID] = true
			mu.Unlock()
			wg.Add(1)
			go func(r Run) {
				defer wg.Done()
				defer func() { <-slots }()
				stalled := time.Since(r.UpdatedAt)
				log.Info("taking over a stalled run", "run_id", r.ID, "index", r.IndexName, "processed", r.Processed, "total", r.Total,
					"since_last_progress_ms", stalled.Milliseconds())
				err := b.Execute(ctx, r.ID)
				mu.Lock()
				defer mu.Unlock()
				delete(active, r.ID)
				if err == nil || ctx.Err() != nil {
					delete(failures, r.ID)
					return
				}
				failures[r.ID]++
				log.Warn("resuming a stalled run failed", "run_id", r.ID, "attempt", failures[r.ID], "error", err.Error())
				if failures[r.ID] >= reclaimGiveUp {
					delete(failures, r.ID)
					bg := context.WithoutCancel(ctx)
					_, _ = b.Runs.SetStatus(bg, r.ID, Failed, []string{Running}, b.now(), "gave up after "+strconv.Itoa(reclaimGiveUp)+" takeovers: "+err.Error())
					_ = b.Runs.ReleaseIndex(bg, r.IndexName, r.ID)
				}
			}(r)
		}
	}
}
