package edge

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/testcheck"
)

// TestProbeFailingAtItsDeadlineNeverWedges: a check whose answer is taken just as its context ends (a
// frozen ClickHouse's client failing right at the deadline), or that answers only after it (a check that
// ignores its context), is collected every time and the next probe starts a new check. The old probe took
// the answer, then saw its context done and waited for a second answer that never came: no check started
// again, and the dependency stayed "unavailable" for good (7 minutes after a 6 s ClickHouse freeze, with
// 326,562 usage requests refused). The hook holds the probe between taking the answer and looking at its
// context until the deadline has passed, so the interleaving happens every time.
func TestProbeFailingAtItsDeadlineNeverWedges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(ctx context.Context) error
	}{
		{"answers, then the deadline passes", func(context.Context) error { return errors.New("connection refused") }},
		{"answers at the deadline", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
		{"answers after the deadline", func(ctx context.Context) error {
			<-ctx.Done()
			time.Sleep(time.Millisecond)
			return errors.New("late")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var started atomic.Int64
			check := func(ctx context.Context) error { started.Add(1); return tc.check(ctx) }
			d := newDeps(map[string]func(context.Context) error{"dep": check}, nil)
			d.timeout, d.fresh = time.Millisecond, 0
			d.afterAnswer = func(ctx context.Context) { <-ctx.Done() }
			st := d.states["dep"]
			for i := range 100 {
				d.probe("dep")
				waitUntil(t, func() bool { return started.Load() == int64(i+1) }, "check %d never started (%d started)", i+1, started.Load())
				waitUntil(t, func() bool {
					st.mu.Lock()
					defer st.mu.Unlock()
					return !st.running
				}, "check %d was never collected: no check can start again", i+1)
				if s := d.state("dep"); s != "unavailable" {
					t.Fatalf("check %d: state %q, want unavailable", i+1, s)
				}
			}
			// a recovered dependency is seen by the next check
			st.check = func(context.Context) error { return nil }
			d.probe("dep")
			waitUntil(t, func() bool { return d.state("dep") == "ok" }, "never ok again after the dependency recovered")
		})
	}
}

// waitUntil polls cond until it holds, failing after 5 s with the message.
func waitUntil(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	testcheck.WaitFor(t, 5*time.Second, fmt.Sprintf(format, args...), cond)
}
