package screening_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
)

// countingRef counts the reads of fundamentals (one per computed screening) on the real store.
type countingRef struct {
	market.RefStore
	n atomic.Int64
}

func (c *countingRef) Fundamentals(ctx context.Context, sym string) ([]shariah.Fundamentals, error) {
	c.n.Add(1)
	time.Sleep(20 * time.Millisecond) // widen the window in which concurrent misses overlap
	return c.RefStore.Fundamentals(ctx, sym)
}

func TestScreenerComputesAMissOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	_, rc := redistest.StartWithDefaultPack(t)
	ctx := context.Background()
	store := sredis.NewRefStore(rc)
	ref := &countingRef{RefStore: store}
	s := &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: allRulesets(t)}
	var wg sync.WaitGroup
	var cachedN atomic.Int64
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, cached, err := s.Screen(ctx, "MSFT", screening.ScreenOptions{})
			if err != nil || r.Symbol != "MSFT" {
				t.Error(r.Symbol, err)
			}
			if cached {
				cachedN.Add(1)
			}
		}()
	}
	wg.Wait()
	if ref.n.Load() != 1 {
		t.Fatalf("50 concurrent requests computed %d times, want 1", ref.n.Load())
	}
	// A fresh process (empty memory) finds the result in Redis: no computation.
	s2 := &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: allRulesets(t)}
	if _, cached, err := s2.Screen(ctx, "MSFT", screening.ScreenOptions{}); err != nil || !cached || ref.n.Load() != 1 {
		t.Fatalf("second process: cached=%v computations=%d %v", cached, ref.n.Load(), err)
	}
	// New reference data (a load bumps the version) makes the cached result stale.
	if _, err := store.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	if _, cached, _ := s2.Screen(ctx, "MSFT", screening.ScreenOptions{}); cached || ref.n.Load() != 2 {
		t.Fatalf("after a data change: cached=%v computations=%d", cached, ref.n.Load())
	}
	if _, cached, _ := s2.Screen(ctx, "MSFT", screening.ScreenOptions{ForceRefresh: true}); cached || ref.n.Load() != 3 {
		t.Fatalf("force_refresh: cached=%v computations=%d", cached, ref.n.Load())
	}
}
