package redis_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// withRate returns the plans with one plan's rate limit replaced.
func withRate(ps account.Plans, plan string, r account.RateLimit) account.Plans {
	out := append(account.Plans(nil), ps...)
	for i := range out {
		if out[i].ID == plan {
			out[i].RateLimit = r
		}
	}
	return out
}

// TestRateLimitHoldsAcrossEdges: three clients (three edges) share one Redis; a burst of 300 concurrent
// requests of one key gets the plan's burst and no more (plus what the rate refilled meanwhile), a
// refused request charges nothing and says when to retry, and after that wait the key is served again.
func TestRateLimitHoldsAcrossEdges(t *testing.T) {
	ctx := context.Background()
	plans := withRate(account.DefaultPlans().WithoutRateLimits(), account.PlanPro, account.RateLimit{RequestsPerSecond: 5, Burst: 10})
	url := testsvc.MustRedis(t).RedisURL()
	var meters []*sredis.Meter
	var keys *account.Keys
	for range 3 {
		c, err := sredis.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		meters = append(meters, sredis.NewMeter(c, plans))
		keys = &account.Keys{Store: sredis.NewKeyStore(c), Plans: plans}
	}
	k, err := keys.Create(ctx, fmt.Sprintf("rate-%d@example.com", time.Now().UnixNano()), account.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	var ok, limited atomic.Int64
	var retry atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch, err := meters[i%3].Charge(ctx, k.Record.Hash, 1, time.Now())
			switch shariah.ErrorCode(err) {
			case "":
				ok.Add(1)
				if ch.Rate.Burst != 10 || ch.Rate.Remaining < 0 || ch.Rate.Remaining > 9 {
					t.Errorf("rate state of a served request: %+v", ch.Rate)
				}
			case shariah.ERATELIMITED:
				limited.Add(1)
				retry.Store(ch.Rate.RetryAfter)
				if ch.Tokens != 0 || ch.Rate.RetryAfter <= 0 || ch.Rate.RetryAfter > 200 || ch.Rate.Remaining != 0 {
					t.Errorf("refused charge %+v", ch)
				}
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	refill := int64(time.Since(start).Seconds()*5) + 1
	if ok.Load() < 10 || ok.Load() > 10+refill || ok.Load()+limited.Load() != 300 {
		t.Fatalf("served %d, limited %d of 300 (burst 10, up to %d refilled)", ok.Load(), limited.Load(), refill)
	}
	st, err := keys.Store.MeterState(ctx, k.Record.Hash, account.PeriodOf(time.Now()))
	if err != nil || st.Used != ok.Load() {
		t.Fatalf("tokens used %d, served %d: a refused request was charged (%v)", st.Used, ok.Load(), err)
	}
	time.Sleep(time.Duration(retry.Load())*time.Millisecond + 10*time.Millisecond)
	if _, err := meters[0].Charge(ctx, k.Record.Hash, 1, time.Now()); err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}
	// A plan without a rate limit reports none.
	e, err := keys.Create(ctx, fmt.Sprintf("rate-e-%d@example.com", time.Now().UnixNano()), account.PlanEnterprise)
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := meters[0].Charge(ctx, e.Record.Hash, 1, time.Now()); err != nil || ch.Rate.Burst != 0 {
		t.Fatalf("unlimited plan: %+v %v", ch.Rate, err)
	}
}
