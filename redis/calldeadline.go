package redis

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// DefaultCallTimeout is the deadline of one Redis call made on a request's behalf (WithCallTimeout)
// when none is configured: a hung Redis (stopped, not down: its connections stay open and silent)
// answers the request 503 within about this long, instead of after rueidis's own keep-alive and
// dial timeouts (5 s each, then retries: 15-25 s measured).
const DefaultCallTimeout = time.Second

type callBudgetKey struct{}

// callBudget is a request's Redis call timeout, and whether one of its calls has run out of it.
type callBudget struct {
	d       time.Duration
	expired atomic.Bool
}

// expiredShare divides a request's call timeout for its calls after one has run out of it.
const expiredShare = 10

// WithCallTimeout marks ctx as a request's: every call of a client from Open given a context derived
// from it (context.WithoutCancel included) gets a deadline of at most d from the call's start, and
// once one such call has run out of it (Redis hung), the request's later calls get a tenth of d: a
// request answers within about d plus a tenth of d per later call, whatever number of calls it
// makes, and its clean-up calls (releasing a claim, a refund) still reach the nodes that answer. A call past its deadline fails
// with context.DeadlineExceeded, which Unavailable reports (a 503 with Retry-After at the edge).
// Work that is no request's (settle loops, ingest, workers) does not carry the mark and keeps its
// own deadlines. d <= 0 is DefaultCallTimeout. Mark each request's context anew.
func WithCallTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return context.WithValue(ctx, callBudgetKey{}, &callBudget{d: d})
}

// boundedClient is the client Open returns: it applies a request's call timeout (WithCallTimeout) to
// every command it sends. A context's own earlier deadline stands. Streams (DoStream,
// DoMultiStream), subscriptions (Receive) and dedicated connections are not bounded: nothing on a
// request's path uses them, and a stream is read after the call returns.
type boundedClient struct{ rueidis.Client }

// Bound applies a request's call timeout (WithCallTimeout) to a call of another Redis client (asynq's
// go-redis): it returns ctx with the call's deadline, or ctx itself when it has no call timeout or an earlier deadline of its
// own. done must be called with the call's error.
func Bound(ctx context.Context) (context.Context, func(error)) { return bound(ctx) }

// bound is Bound, for the client from Open.
func bound(ctx context.Context) (context.Context, func(error)) {
	b, ok := ctx.Value(callBudgetKey{}).(*callBudget)
	if !ok {
		return ctx, func(error) {}
	}
	d := b.d
	if b.expired.Load() {
		d = b.d / expiredShare
	}
	if dl, has := ctx.Deadline(); has && time.Until(dl) <= d {
		return ctx, func(error) {}
	}
	c, cancel := context.WithTimeout(ctx, d)
	return c, func(err error) {
		if err != nil && errors.Is(c.Err(), context.DeadlineExceeded) {
			b.expired.Store(true)
		}
		cancel()
	}
}

func (b boundedClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	ctx, done := bound(ctx)
	r := b.Client.Do(ctx, cmd)
	done(r.Error())
	return r
}

func (b boundedClient) DoMulti(ctx context.Context, multi ...rueidis.Completed) []rueidis.RedisResult {
	ctx, done := bound(ctx)
	rs := b.Client.DoMulti(ctx, multi...)
	done(firstError(rs))
	return rs
}

func (b boundedClient) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	ctx, done := bound(ctx)
	r := b.Client.DoCache(ctx, cmd, ttl)
	done(r.Error())
	return r
}

func (b boundedClient) DoMultiCache(ctx context.Context, multi ...rueidis.CacheableTTL) []rueidis.RedisResult {
	ctx, done := bound(ctx)
	rs := b.Client.DoMultiCache(ctx, multi...)
	done(firstError(rs))
	return rs
}

// firstError is the first transport error of a pipeline's results (a Redis error reply is an answer).
func firstError(rs []rueidis.RedisResult) error {
	for _, r := range rs {
		if err := r.NonRedisError(); err != nil {
			return err
		}
	}
	return nil
}
