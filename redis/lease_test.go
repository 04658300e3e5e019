package redis_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// runLeases runs a lease meter's settling loop until the test ends (and its final give-back).
func runLeases(tb testing.TB, m *sredis.LeaseMeter) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = m.Run(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done })
}

// TestLeaseChargesFewScriptCalls: an enterprise key's requests are served from the lease: 5,000 charges
// cost far fewer script calls than requests, and after a Flush tokens_used is exact.
func TestLeaseChargesFewScriptCalls(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, shariah.PlanEnterprise)
	m := sredis.NewLeaseMeter(b.client, b.plans, sredis.LeaseOptions{})
	runLeases(t, m)
	ctx := context.Background()
	before := scriptCalls(t, b)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				ch, err := m.Charge(ctx, k.Record.Hash, 1, time.Now())
				if err != nil || ch.Tokens != 1 || ch.Remaining != -1 {
					t.Errorf("charge: %+v %v", ch, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := m.Flush(ctx, k.Record.Hash); err != nil {
		t.Fatal(err)
	}
	st, err := b.keys.Store.MeterState(ctx, k.Record.Hash, shariah.PeriodOf(time.Now()))
	if err != nil || st.Used != 5000 {
		t.Fatalf("meter %+v %v, want 5000 used", st, err)
	}
	if n := scriptCalls(t, b) - before; n > 500 {
		t.Fatalf("%d script calls for 5000 charges: leases are not used", n)
	} else {
		t.Logf("%d script calls for 5000 charges", n)
	}
}

// scriptCalls counts EVALSHA and EVAL calls Redis has run.
func scriptCalls(t *testing.T, b *bundle) int64 {
	t.Helper()
	m, err := b.client.Do(context.Background(), b.client.B().Arbitrary("INFO").Args("commandstats").Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
		if i := strings.Index(m, cmd); i >= 0 {
			var v int64
			for _, c := range m[i+len(cmd):] {
				if c < '0' || c > '9' {
					break
				}
				v = v*10 + int64(c-'0')
			}
			n += v
		}
	}
	return n
}

// TestLeaseLapsesIntoUsed: an edge that stops settling (as a crashed one) has its lease counted whole as
// used once it lapses: tokens_used is then at least what it served, and at most that plus its lease.
func TestLeaseLapsesIntoUsed(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, shariah.PlanPro)
	ctx := context.Background()
	dead := sredis.NewLeaseMeter(b.client, b.plans, sredis.LeaseOptions{TTL: 300 * time.Millisecond}) // never runs: never settles
	served := int64(0)
	for range 40 {
		if _, err := dead.Charge(ctx, k.Record.Hash, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		served++
	}
	st, err := b.keys.Store.MeterState(ctx, k.Record.Hash, shariah.PeriodOf(time.Now()))
	if err != nil || st.Leased == 0 {
		t.Fatalf("no lease held: %+v %v", st, err)
	}
	held := st.Used + st.Leased
	if held < served {
		t.Fatalf("used %d + leased %d is less than the %d served", st.Used, st.Leased, served)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		// every script call on the key (here another edge's exact charge) sweeps lapsed leases
		if _, err := b.meter.Charge(ctx, k.Record.Hash, 0, time.Now()); err != nil {
			t.Fatal(err)
		}
		st, err = b.keys.Store.MeterState(ctx, k.Record.Hash, shariah.PeriodOf(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		if st.Leased == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lease never lapsed: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st.Used != held {
		t.Fatalf("after the lapse used = %d, want the %d used and leased before (served %d)", st.Used, held, served)
	}
}

func BenchmarkLeaseCharge(b *testing.B) {
	c, plans, hash := benchKey(b)
	m := sredis.NewLeaseMeter(c, plans, sredis.LeaseOptions{})
	runLeases(b, m)
	benchCharges(b, m, hash)
}

// TestLeaseRateRemainingIsTheKeys: X-RateLimit-Remaining on a request served from a lease is what the
// key's rate bucket allows, not the few request credits this edge holds of it.
func TestLeaseRateRemainingIsTheKeys(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, shariah.PlanEnterprise)
	plans := shariah.DefaultPlans()
	ent, _ := plans.Lookup(shariah.PlanEnterprise) // 1,000 req/s, burst 2,000
	m := sredis.NewLeaseMeter(b.client, plans, sredis.LeaseOptions{})
	runLeases(t, m)
	ctx := context.Background()
	leased := 0
	for i := range 50 {
		ch, err := m.Charge(ctx, k.Record.Hash, 1, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if ch.Lease {
			leased++
		}
		// 50 requests at most were taken from a full bucket (and it refills meanwhile)
		if ch.Rate.Burst != ent.RateLimit.Burst || ch.Rate.Remaining < ent.RateLimit.Burst-1-i || ch.Rate.Remaining > ent.RateLimit.Burst {
			t.Fatalf("request %d (lease %v): rate %+v, want remaining within [%d, %d]", i+1, ch.Lease, ch.Rate, ent.RateLimit.Burst-1-i, ent.RateLimit.Burst)
		}
	}
	if leased == 0 {
		t.Fatal("no request was served from a lease")
	}
}

// TestLeaseExactChargesUseTheHeldCredits: a Free key's tokens are charged exactly (its allowance is too
// small to lease), while its request credits are leased; the exact charges must not be refused for the
// rate while the burst is not used up (19 requests from a full bucket of 20), however fast they come.
func TestLeaseExactChargesUseTheHeldCredits(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	plans := shariah.DefaultPlans()
	free, _ := plans.Lookup(shariah.PlanFree) // 5 req/s, burst 20, 50 tokens
	m := sredis.NewLeaseMeter(b.client, plans, sredis.LeaseOptions{})
	runLeases(t, m)
	ctx := context.Background()
	for round := range 5 {
		k := b.newKey(t, shariah.PlanFree)
		costs := []int{0, 0, 1, 2, 0, 2, 1, 0, 2, 2, 0, 1, 2, 0, 2, 1, 0, 2, 2} // 19 requests, 20 tokens
		if len(costs) >= free.RateLimit.Burst {
			t.Fatal("the test must stay within the burst")
		}
		for i, c := range costs {
			ch, err := m.Charge(ctx, k.Record.Hash, c, time.Now())
			if err != nil {
				t.Fatalf("round %d, request %d (cost %d): %v (charge %+v)", round, i+1, c, err, ch)
			}
		}
	}
}
