package redis

import (
	"context"
	"testing"
	"time"
)

// TestCallBudget: a request's calls get a deadline of at most the call timeout (between d/2 and d,
// shared while fresh), a context's own earlier deadline stands, unmarked contexts are left alone, and
// after a call has run out of its deadline the request's later calls get a tenth of it.
func TestCallBudget(t *testing.T) {
	const d = 400 * time.Millisecond
	if bc := bound(context.Background()); bc.ctx != context.Background() || bc.b != nil {
		t.Fatal("an unmarked context was changed")
	}
	req := WithCallTimeout(context.Background(), d)
	left := func(bc boundCall) time.Duration {
		dl, ok := bc.ctx.Deadline()
		if !ok {
			t.Fatal("a call of a request has no deadline")
		}
		return time.Until(dl)
	}
	first := bound(req)
	if l := left(first); l > d || l < d/2 {
		t.Fatalf("first call's deadline in %v, want within (%v, %v]", l, d/2, d)
	}
	first.done(nil)
	if again := bound(WithCallTimeout(context.Background(), d)); again.ctx != first.ctx {
		t.Fatal("a fresh shared deadline was not reused by another request")
	}
	own, cancel := context.WithTimeout(req, d/4)
	defer cancel()
	if bc := bound(own); bc.ctx != own {
		t.Fatal("a context's own earlier deadline was replaced")
	}
	// a call that runs out of its deadline
	short := WithCallTimeout(context.Background(), 20*time.Millisecond)
	bc := bound(short)
	<-bc.ctx.Done()
	bc.done(bc.ctx.Err())
	if l := left(bound(short)); l > 2*time.Millisecond {
		t.Fatalf("a call after one ran out of its deadline has %v, want at most a tenth of 20ms", l)
	}
}

// BenchmarkCallBudget: what the budget adds to each Redis call of a request (a fresh shared
// deadline: no allocation).
func BenchmarkCallBudget(b *testing.B) {
	ctx := WithCallTimeout(context.Background(), time.Second)
	for b.Loop() {
		bound(ctx).done(nil)
	}
}
