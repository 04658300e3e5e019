package redis_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// bundle is what a meter test needs: a client, the stores and a key of a chosen plan.
type bundle struct {
	client rueidis.Client
	keys   *account.Keys
	meter  *sredis.Meter
	plans  account.Plans
}

func setup(t *testing.T, url string) *bundle {
	t.Helper()
	c, err := sredis.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	plans := account.DefaultPlans().WithoutRateLimits()
	ks := sredis.NewKeyStore(c)
	return &bundle{client: c, plans: plans, meter: sredis.NewMeter(c, plans),
		keys: &account.Keys{Store: ks, Plans: plans}}
}

func (b *bundle) newKey(t *testing.T, plan string) account.IssuedKey {
	t.Helper()
	k, err := b.keys.Create(context.Background(), fmt.Sprintf("user-%d@example.com", time.Now().UnixNano()), plan)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestMeterFreePlanNeverOvershootsUnderContention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Several independent clients (as several edge processes would have) share one Redis.
	url := testsvc.MustRedis(t).RedisURL()
	clients := []*bundle{setup(t, url), setup(t, url), setup(t, url)}
	for _, cost := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("cost%d", cost), func(t *testing.T) {
			k := clients[0].newKey(t, account.PlanFree)
			var ok, refused atomic.Int64
			var wg sync.WaitGroup
			for i := range 600 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := clients[i%len(clients)].meter.Charge(ctx, k.Record.Hash, cost, time.Now())
					switch shariah.ErrorCode(err) {
					case "":
						ok.Add(1)
					case shariah.EQUOTA:
						refused.Add(1)
					default:
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			want := int64(50 / cost)
			if ok.Load() != want {
				t.Fatalf("successes = %d, want exactly %d", ok.Load(), want)
			}
			st, err := sredis.NewKeyStore(clients[0].client).MeterState(ctx, k.Record.Hash, account.PeriodOf(time.Now()))
			if err != nil {
				t.Fatal(err)
			}
			if st.Used != want*int64(cost) || st.Used > 50 {
				t.Fatalf("used = %d, want %d (never above 50)", st.Used, want*int64(cost))
			}
			if refused.Load() != 600-want {
				t.Fatalf("refused = %d, want %d", refused.Load(), 600-want)
			}
		})
	}
}

func TestMeterPaidPlanCountsOverage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanStarter)
	// Bring the key to 2 tokens under its 2,500 allowance.
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 2498, time.Now()); err != nil {
		t.Fatal(err)
	}
	ch, err := b.meter.Charge(ctx, k.Record.Hash, 5, time.Now())
	if err != nil {
		t.Fatalf("paid plan refused past its allowance: %v", err)
	}
	if ch.Overage != 3 || ch.Used != 2503 || ch.Remaining != 0 {
		t.Fatalf("charge = %+v, want overage 3, used 2503, remaining 0", ch)
	}
	ch2, err := b.meter.Charge(ctx, k.Record.Hash, 4, time.Now())
	if err != nil || ch2.Overage != 4 {
		t.Fatalf("second overage charge = %+v, %v; want overage 4", ch2, err)
	}
	// A refund gives back both the tokens and their overage.
	if err := b.meter.Refund(ctx, ch2); err != nil {
		t.Fatal(err)
	}
	st, _ := sredis.NewKeyStore(b.client).MeterState(ctx, k.Record.Hash, account.PeriodOf(time.Now()))
	if st.Used != 2503 || st.Overage != 3 {
		t.Fatalf("after refund: %+v, want used 2503 overage 3", st)
	}
}

func TestMeterEnterpriseUnlimited(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanEnterprise)
	ch, err := b.meter.Charge(context.Background(), k.Record.Hash, 1_000_000, time.Now())
	if err != nil || ch.Remaining != -1 || ch.Overage != 0 || ch.Limit != -1 {
		t.Fatalf("enterprise charge = %+v, %v; want remaining -1, no overage", ch, err)
	}
}

func TestMeterRefusesUnknownAndDeactivatedKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	if _, err := b.meter.Charge(ctx, account.HashKey("shr_nope"), 1, time.Now()); shariah.ErrorCode(err) != shariah.EBADKEY {
		t.Fatalf("unknown key: %v, want %s", err, shariah.EBADKEY)
	}
	k := b.newKey(t, account.PlanPro)
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.keys.Revoke(ctx, k.Record.Prefix, &k.Record); err != nil {
		t.Fatal(err)
	}
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 1, time.Now()); shariah.ErrorCode(err) != shariah.EKEYINACTIVE {
		t.Fatalf("revoked key: %v, want %s", err, shariah.EKEYINACTIVE)
	}
}

func TestMeterSurvivesScriptFlushAndRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	own := testsvc.MustRedis(t)
	b := setup(t, own.RedisURL())
	k := b.newKey(t, account.PlanPro)
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := b.client.Do(ctx, b.client.B().ScriptFlush().Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 1, time.Now()); err != nil {
		t.Fatalf("after SCRIPT FLUSH: %v", err)
	}
	// A restart empties the script cache and (without persistence) the data: the same client
	// reconnects, and the meter answers "unknown key" rather than a script error.
	if err := own.RestartRedis(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 1, time.Now()); shariah.ErrorCode(err) != shariah.EBADKEY {
		t.Fatalf("first charge after restart: %v, want %s", err, shariah.EBADKEY)
	}
	// Key creation is not retried by the store; a fresh client stands for the operator's next command.
	b2 := setup(t, own.RedisURL())
	k2 := b2.newKey(t, account.PlanPro)
	if _, err := b.meter.Charge(ctx, k2.Record.Hash, 1, time.Now()); err != nil {
		t.Fatalf("new key after restart: %v", err)
	}
}

func TestRegenerateCarriesTheMonthsUsage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanFree)
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 30, time.Now()); err != nil {
		t.Fatal(err)
	}
	nk, err := b.keys.Regenerate(ctx, k.Record)
	if err != nil {
		t.Fatal(err)
	}
	if nk.Record.UserID != k.Record.UserID || nk.Record.Plan != account.PlanFree {
		t.Fatalf("replacement %+v does not keep user and plan of %+v", nk.Record, k.Record)
	}
	if _, err := b.meter.Charge(ctx, k.Record.Hash, 1, time.Now()); shariah.ErrorCode(err) != shariah.EKEYINACTIVE {
		t.Fatalf("old key after regenerate: %v", err)
	}
	// 30 used before; 21 more would pass 50.
	if _, err := b.meter.Charge(ctx, nk.Record.Hash, 21, time.Now()); shariah.ErrorCode(err) != shariah.EQUOTA {
		t.Fatalf("replacement got a fresh allowance: %v", err)
	}
	if ch, err := b.meter.Charge(ctx, nk.Record.Hash, 20, time.Now()); err != nil || ch.Used != 50 {
		t.Fatalf("charge to the limit: %+v, %v", ch, err)
	}
}

func TestMeterOnRedisCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	cl := testsvc.MustRedisCluster(t, 3)
	ctx := context.Background()
	b := setup(t, cl.URL())
	// Several keys land on different slots; each must be charged exactly to its allowance.
	var keys []account.IssuedKey
	for range 5 {
		keys = append(keys, b.newKey(t, account.PlanFree))
	}
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := b.meter.Charge(ctx, keys[i%len(keys)].Record.Hash, 1, time.Now())
			if err == nil {
				ok.Add(1)
			} else if shariah.ErrorCode(err) != shariah.EQUOTA {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 250 {
		t.Fatalf("successes on cluster = %d, want 250 (5 keys x 50)", ok.Load())
	}
	ch, err := b.meter.Charge(ctx, keys[0].Record.Hash, 0, time.Now())
	if err != nil || ch.Used != 50 {
		t.Fatalf("zero-cost charge at the limit: %+v %v", ch, err)
	}
	if err := b.meter.Refund(ctx, account.Charge{Key: keys[0].Record, Period: account.PeriodOf(time.Now()), Tokens: 5}); err != nil {
		t.Fatalf("refund on cluster: %v", err)
	}
}

func BenchmarkMeterCharge(b *testing.B) {
	c, plans, hash := benchKey(b)
	benchCharges(b, sredis.NewMeter(c, plans), hash)
}

// benchKey opens a client on a Redis of the benchmark's own and creates an enterprise key whose rate
// limit runs in every charge (credits are leased too) but never refuses.
func benchKey(b *testing.B) (rueidis.Client, account.Plans, string) {
	c, err := sredis.Open(testsvc.MustRedis(b).RedisURL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	plans := withRate(account.DefaultPlans(), account.PlanEnterprise, account.RateLimit{RequestsPerSecond: 1e6, Burst: 1e6})
	keys := &account.Keys{Store: sredis.NewKeyStore(c), Plans: plans}
	k, err := keys.Create(context.Background(), "bench@example.com", account.PlanEnterprise)
	if err != nil {
		b.Fatal(err)
	}
	return c, plans, k.Record.Hash
}

// benchCharges charges one token at a time, from one goroutine and from several.
func benchCharges(b *testing.B, m account.Meter, hash string) {
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := m.Charge(ctx, hash, 1, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

func TestMeterKeyExpiresAfterItsPeriod(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanPro)
	now := time.Now()
	for range 3 {
		if _, err := b.meter.Charge(ctx, k.Record.Hash, 2, now); err != nil {
			t.Fatal(err)
		}
	}
	p := account.PeriodOf(now)
	ttl, err := b.client.Do(ctx, b.client.B().Ttl().Key("shr:meter:{"+k.Record.Hash+"}:"+p.ID()).Build()).AsInt64()
	if err != nil {
		t.Fatal(err)
	}
	want := int64(p.End.Sub(now).Seconds()) + 62*24*3600
	if ttl < want-60 || ttl > want+1 {
		t.Fatalf("meter TTL %d s, want about %d (62 days past the period's end)", ttl, want)
	}
}
