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

// A request that missed the cache while another computed, and joined the flight only after that flight
// ended, finds the result cached: one computation of one miss. (The race
// TestScreenerComputesAMissOnceUnderConcurrency hit once under load: "computed 2 times, want 1".) The
// hook holds the first request between its miss and its joining until the second has computed.
func TestAMissJoiningAfterTheFlightEndedIsNotComputedAgain(t *testing.T) {
	t.Parallel()
	_, rc := redistest.StartWithDefaultPack(t)
	ctx := context.Background()
	ref := &countingRef{RefStore: sredis.NewRefStore(rc)}
	s := &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: allRulesets(t)}
	missed, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	s.SetAfterMiss(func() {
		if first.CompareAndSwap(false, true) {
			close(missed)
			<-release
		}
	})
	done := make(chan bool, 1)
	go func() {
		_, cached, err := s.Screen(ctx, "MSFT", screening.ScreenOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- cached
	}()
	<-missed
	if _, cached, err := s.Screen(ctx, "MSFT", screening.ScreenOptions{}); err != nil || cached {
		t.Fatalf("the second request: cached %v, %v; want computed", cached, err)
	}
	close(release)
	if cached := <-done; !cached || ref.n.Load() != 1 {
		t.Fatalf("the request that joined after the flight ended: cached %v, computations %d; want cached and 1", cached, ref.n.Load())
	}
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
