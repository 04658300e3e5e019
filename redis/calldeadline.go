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

// expiredShare divides a request's call timeout for its calls after one has run out of it.
const expiredShare = 10

type callBudgetKey struct{}

// callBudget is a request's context (WithCallTimeout): its Redis call timeout, and whether one of its
// calls has run out of it.
type callBudget struct {
	context.Context
	d       time.Duration
	expired atomic.Bool
	// shareable: the parent cannot be cancelled, so calls given the budget itself (not a context
	// derived from it) run with the shared deadline.
	shareable bool
}

// Value implements context.Context.
func (b *callBudget) Value(key any) any {
	if key == (callBudgetKey{}) {
		return b
	}
	return b.Context.Value(key)
}

// deadlineCtx is a context with a deadline d after its start, and its cancel (called by nobody: its
// timer ends it).
type deadlineCtx struct {
	ctx    context.Context
	d      time.Duration
	at     time.Time
	cancel context.CancelFunc
}

// sharedDeadline is the deadline the calls of every request given its root context reuse while at
// least half of their timeout is left on it: one timer every half timeout for the process, not one per
// call or request. It carries no request's values or cancellation: a root has no cancellation, and
// rueidis reads no values.
var sharedDeadline atomic.Pointer[deadlineCtx]

// WithCallTimeout marks ctx as a request's: every call of a client from Open given a context derived
// from it (context.WithoutCancel included) gets a deadline between d/2 and d from the call's start,
// and once one such call has run out of it (Redis hung), the request's later calls get a tenth of d:
// a request answers within about d plus a tenth of d per later call, whatever number of calls it
// makes, and its clean-up calls (releasing a claim) still reach the nodes that answer. A call past its
// deadline fails with context.DeadlineExceeded, which Unavailable reports (a 503 with Retry-After at
// the edge). Work that is no request's (settle loops, ingest, workers) does not carry the mark and
// keeps its own deadlines. d <= 0 is DefaultCallTimeout. Mark each request's context anew.
func WithCallTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return &callBudget{Context: ctx, d: d, shareable: ctx.Done() == nil}
}

// boundedClient is the client Open returns: it applies a request's call timeout (WithCallTimeout) to
// every command it sends. A context's own earlier deadline stands. Streams (DoStream,
// DoMultiStream), subscriptions (Receive) and dedicated connections are not bounded: nothing on a
// request's path uses them, and a stream is read after the call returns. memo remembers the values of
// client-side cached reads (read_memo.go).
type boundedClient struct {
	rueidis.Client
	memo *readMemo
}

// boundCall is one call's context under its request's budget.
type boundCall struct {
	ctx    context.Context
	b      *callBudget        // nil: ctx carries no call timeout
	cancel context.CancelFunc // of a context made for this call alone
}

// bound returns the context a call given ctx runs with: ctx itself when it carries no call timeout
// (WithCallTimeout) or an earlier deadline of its own; else ctx with the call's deadline.
func bound(ctx context.Context) boundCall {
	b, ok := ctx.Value(callBudgetKey{}).(*callBudget)
	if !ok {
		return boundCall{ctx: ctx}
	}
	d := b.d
	expired := b.expired.Load()
	if expired {
		d = b.d / expiredShare
	}
	now := time.Now()
	if dl, has := ctx.Deadline(); has && dl.Sub(now) <= d {
		return boundCall{ctx: ctx, b: b}
	}
	if b.shareable && ctx == context.Context(b) && !expired {
		if s := sharedDeadline.Load(); s != nil && s.d == d && s.at.Sub(now) >= d/2 {
			return boundCall{ctx: s.ctx, b: b}
		}
		c, cancel := context.WithDeadline(context.Background(), now.Add(d))
		sharedDeadline.Store(&deadlineCtx{ctx: c, d: d, at: now.Add(d), cancel: cancel})
		return boundCall{ctx: c, b: b}
	}
	c, cancel := context.WithTimeout(ctx, d)
	return boundCall{ctx: c, b: b, cancel: cancel}
}

// done ends the call with its error: a call that ran out of its deadline marks the request's budget.
func (bc boundCall) done(err error) {
	if bc.b != nil && err != nil && errors.Is(bc.ctx.Err(), context.DeadlineExceeded) {
		bc.b.expired.Store(true)
	}
	if bc.cancel != nil {
		bc.cancel()
	}
}

// Bound applies a request's call timeout (WithCallTimeout) to a call of another Redis client (asynq's
// go-redis): it returns ctx with the call's deadline, or ctx itself when it carries no call timeout
// or an earlier deadline of its own. done must be called with the call's error.
func Bound(ctx context.Context) (context.Context, func(error)) {
	bc := bound(ctx)
	return bc.ctx, bc.done
}

func (b boundedClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	bc := bound(ctx)
	r := b.Client.Do(bc.ctx, cmd)
	bc.done(r.Error())
	return r
}

func (b boundedClient) DoMulti(ctx context.Context, multi ...rueidis.Completed) []rueidis.RedisResult {
	bc := bound(ctx)
	rs := b.Client.DoMulti(bc.ctx, multi...)
	bc.done(firstError(rs))
	return rs
}

func (b boundedClient) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	bc := bound(ctx)
	r := b.Client.DoCache(bc.ctx, cmd, ttl)
	bc.done(r.Error())
	return r
}

func (b boundedClient) DoMultiCache(ctx context.Context, multi ...rueidis.CacheableTTL) []rueidis.RedisResult {
	bc := bound(ctx)
	rs := b.Client.DoMultiCache(bc.ctx, multi...)
	bc.done(firstError(rs))
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
