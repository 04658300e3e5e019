package etf

import (
	"context"
	"time"
)

// etfPollInterval is how often AwaitScreening looks for the worker's result.
const etfPollInterval = 50 * time.Millisecond

// AwaitScreening hands an ETF look-through to a worker (enqueue) and waits, at most wait, for its
// result in results: the look-through of symbol under ruleset screened at or after start (the caller's
// clock, read before enqueueing, to the millisecond). ok is false when none arrived in time (the
// look-through is still running); the wait ends early with ctx's error.
func AwaitScreening(ctx context.Context, enqueue func(context.Context) error, results ResultStore, symbol, ruleset string,
	start time.Time, wait time.Duration) (Result, bool, error) {
	if err := enqueue(ctx); err != nil {
		return Result{}, false, err
	}
	deadline := time.Now().Add(wait)
	for {
		r, ok, err := results.ETFResult(ctx, symbol, ruleset)
		if err != nil {
			return Result{}, false, err
		}
		if ok && !r.ScreenedAt.Before(start.Truncate(time.Millisecond)) {
			return r, true, nil
		}
		if time.Now().After(deadline) {
			return Result{}, false, nil
		}
		select {
		case <-ctx.Done():
			return Result{}, false, ctx.Err()
		case <-time.After(etfPollInterval):
		}
	}
}
