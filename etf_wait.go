package shariah

import (
	"context"
	"time"
)

// etfPollInterval is how often AwaitETFScreening looks for the worker's result.
const etfPollInterval = 50 * time.Millisecond

// AwaitETFScreening hands an ETF look-through to a worker (enqueue) and waits, at most wait, for its
// result in results: the look-through of symbol under ruleset screened at or after start (the caller's
// clock, read before enqueueing, to the millisecond). ok is false when none arrived in time (the
// look-through is still running); the wait ends early with ctx's error.
func AwaitETFScreening(ctx context.Context, enqueue func(context.Context) error, results ETFResultStore, symbol, ruleset string,
	start time.Time, wait time.Duration) (ETFResult, bool, error) {
	if err := enqueue(ctx); err != nil {
		return ETFResult{}, false, err
	}
	deadline := time.Now().Add(wait)
	for {
		r, ok, err := results.ETFResult(ctx, symbol, ruleset)
		if err != nil {
			return ETFResult{}, false, err
		}
		if ok && !r.ScreenedAt.Before(start.Truncate(time.Millisecond)) {
			return r, true, nil
		}
		if time.Now().After(deadline) {
			return ETFResult{}, false, nil
		}
		select {
		case <-ctx.Done():
			return ETFResult{}, false, ctx.Err()
		case <-time.After(etfPollInterval):
		}
	}
}
