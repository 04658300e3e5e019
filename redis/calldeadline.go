package redis

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// DefaultCallTimeout is the deadline of one Redis call made on a request's behalf (WithCallTimeout)
// when none is configured: a hung Redis (stopped, not down: its connections stay open and silent)
// answers the request 503 within about this long, instead of after rueidis's own keep-alive and
// dial timeouts (5 s each, then retries: 15-25 s measured).
const DefaultCallTimeout = time.Second

type callTimeoutKey struct{}

// WithCallTimeout marks ctx as a request's: every call of a client from Open given a context derived
// from it (context.WithoutCancel included) gets a deadline of at most d from the call's start. A
// call past it fails with context.DeadlineExceeded, which Unavailable reports (a 503 with
// Retry-After at the edge). Work that is no request's (settle loops, ingest, workers) does not carry
// the mark and keeps its own deadlines. d <= 0 is DefaultCallTimeout.
func WithCallTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return context.WithValue(ctx, callTimeoutKey{}, d)
}

// boundedClient is the client Open returns: it applies a request's call timeout (WithCallTimeout) to
// every command it sends. A context's own earlier deadline stands. Streams (DoStream,
// DoMultiStream), subscriptions (Receive) and dedicated connections are not bounded: nothing on a
// request's path uses them, and a stream is read after the call returns.
type boundedClient struct{ rueidis.Client }

// bound returns ctx with the call deadline applied, or ctx itself (and a no-op cancel) when it has
// no call timeout or an earlier deadline.
func bound(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Value(callTimeoutKey{}).(time.Duration)
	if !ok {
		return ctx, func() {}
	}
	if dl, has := ctx.Deadline(); has && time.Until(dl) <= d {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

func (b boundedClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	ctx, cancel := bound(ctx)
	defer cancel()
	return b.Client.Do(ctx, cmd)
}

func (b boundedClient) DoMulti(ctx context.Context, multi ...rueidis.Completed) []rueidis.RedisResult {
	ctx, cancel := bound(ctx)
	defer cancel()
	return b.Client.DoMulti(ctx, multi...)
}

func (b boundedClient) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	ctx, cancel := bound(ctx)
	defer cancel()
	return b.Client.DoCache(ctx, cmd, ttl)
}

func (b boundedClient) DoMultiCache(ctx context.Context, multi ...rueidis.CacheableTTL) []rueidis.RedisResult {
	ctx, cancel := bound(ctx)
	defer cancel()
	return b.Client.DoMultiCache(ctx, multi...)
}
