package redis_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// meterState reads the key's meter of this month.
func meterState(t *testing.T, b *bundle, hash string) account.MeterState {
	t.Helper()
	st, err := b.keys.Store.MeterState(context.Background(), hash, account.PeriodOf(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// meterKeyOf is the key's meter hash of this month (shr:meter:{<sha256>}:<YYYYMM>).
func meterKeyOf(hash string) string {
	return "shr:meter:{" + hash + "}:" + account.PeriodOf(time.Now()).ID()
}

// TestLeaseRevivedAfterLapse: a lease that lapsed while its edge lived (its settles stopped for longer
// than the lease lifetime, as through a Redis outage) is counted whole only until the edge reports
// again: then tokens_used is exactly what was served. (Before, the report was ignored as "lost" and the
// edge's unspent tokens stayed charged: an over-count of the whole lease.)
func TestLeaseRevivedAfterLapse(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanEnterprise)
	hash := k.Record.Hash
	ctx := context.Background()
	m := sredis.NewLeaseMeter(b.client, b.plans, sredis.LeaseOptions{Interval: time.Hour, TTL: 200 * time.Millisecond})
	served := int64(0)
	for range 40 {
		if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		served++
	}
	held := sredis.Held(m, hash)
	if held == 0 {
		t.Fatal("no lease held")
	}
	if st := waitNoLeases(t, b, hash); st.Used != served+held {
		t.Fatalf("after the lapse: used %d, want the %d served and %d held", st.Used, served, held)
	}
	// the edge was alive all along: its next report takes the lease back
	if err := m.Flush(ctx, hash); err != nil {
		t.Fatal(err)
	}
	st := meterState(t, b, hash)
	if st.Used != served || st.Leased != sredis.Held(m, hash) {
		t.Fatalf("after the edge's report: %+v, want %d used and its %d held leased", st, served, sredis.Held(m, hash))
	}
	for range 100 { // and it goes on serving from the lease
		if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		served++
	}
	if err := sredis.Tick(ctx, m, true); err != nil {
		t.Fatal(err)
	}
	if st := meterState(t, b, hash); st.Used != served || st.Leased != 0 {
		t.Fatalf("after the give-back: %+v, want %d used, nothing leased", st, served)
	}
}

// TestLeaseReportCountedWithoutRecord: after a Redis restart that lost the writes granting an edge's
// lease (AOF with appendfsync everysec loses up to a second), the edge's report of what it served is
// counted, not ignored: no under-count. The edge drops what it held (Redis no longer counts it leased).
func TestLeaseReportCountedWithoutRecord(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanEnterprise)
	hash := k.Record.Hash
	ctx := context.Background()
	m := sredis.NewLeaseMeter(b.client, b.plans, sredis.LeaseOptions{Interval: time.Hour})
	if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil { // exact, and the first block
		t.Fatal(err)
	}
	// the grant's write is lost: the meter as before it
	edge := sredis.EdgeID(m)
	if err := b.client.Do(ctx, b.client.B().Hdel().Key(meterKeyOf(hash)).Field("l:"+edge, "x:"+edge).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if err := b.client.Do(ctx, b.client.B().Hset().Key(meterKeyOf(hash)).FieldValue().FieldValue("leased", "0").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	served := int64(1)
	for sredis.Held(m, hash) > 0 {
		if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		served++
	}
	if err := m.Flush(ctx, hash); err != nil {
		t.Fatal(err)
	}
	if st := meterState(t, b, hash); st.Used != served {
		t.Fatalf("after the report: %+v, want the %d served used", st, served)
	}
}

// TestLeaseHeldWithinOneSecondOfRate: a lease never holds more than about one second of its edge's
// traffic on the key. Past a Pro allowance (overage), eight goroutines charge as fast as they can, then
// one charges 200 times a second: within about a second the lease holds at most MinLease plus what the
// edge served in the last two seconds of the slow phase (its ceiling is the last second's; the margin
// absorbs late ticks).
// Before, a refill doubled the block on every refill within an interval, up to 1,000,000 tokens, and a
// lease kept what it held when the key slowed down.
func TestLeaseHeldWithinOneSecondOfRate(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanPro)
	hash := k.Record.Hash
	ctx := context.Background()
	if _, err := b.meter.Charge(ctx, hash, 15000, time.Now()); err != nil { // the allowance, used
		t.Fatal(err)
	}
	m := sredis.NewLeaseMeter(b.client, b.plans, sredis.LeaseOptions{})
	runLeases(t, m)
	// served per 10 ms since start, to sum the last two seconds
	start := time.Now()
	var buckets [6000]atomic.Int64
	charge := func() {
		if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil {
			t.Error(err)
			return
		}
		buckets[min(int(time.Since(start)/(10*time.Millisecond)), len(buckets)-1)].Add(1)
	}
	slowFrom := 0 // the first bucket of the slow phase: the burst is out of the bound
	lastTwoSeconds := func() int64 {
		now := int(time.Since(start) / (10 * time.Millisecond))
		var n int64
		for i := max(now-200, slowFrom); i <= min(now, len(buckets)-1); i++ {
			n += buckets[i].Load()
		}
		return n
	}
	var wg sync.WaitGroup
	var peak atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20000 {
				charge()
				if h := sredis.Held(m, hash); h > peak.Load() {
					peak.Store(h)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("held at most %d tokens while serving 160,000 in %v", peak.Load(), time.Since(start).Round(time.Millisecond))
	slowFrom = int(time.Since(start)/(10*time.Millisecond)) + 1
	deadline := time.Now().Add(15 * time.Second)
	for {
		charge()
		held, bound := sredis.Held(m, hash), 16+lastTwoSeconds()
		if held <= bound {
			t.Logf("at 200 requests a second: held %d, bound %d", held, bound)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("at 200 requests a second the lease still holds %d tokens, more than %d (MinLease and the last two seconds served)", held, bound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
