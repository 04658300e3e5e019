package redis_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/internal/testsvc"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestEveryScriptOnRedisCluster runs every Lua script of redis/lua and every store path that sends a
// command of several keys (DEL of a run's or a watchlist's keys) on a three-master cluster: Redis
// refuses a script or command whose keys are in different slots (CROSSSLOT), so each passing here
// shares a hash tag. The meter's scripts (exact and leased) have their own cluster tests too
// (TestMeterOnRedisCluster, TestServedReadsOnRedisCluster); a script added to redis/lua without a
// case here fails the test.
func TestEveryScriptOnRedisCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	cl := testsvc.MustRedisCluster(t, 3)
	b := setup(t, cl.URL())
	if !sredis.IsCluster(b.client) {
		t.Fatal("not on a cluster")
	}
	ctx := context.Background()
	ran := map[string]bool{}
	var mu sync.Mutex
	check := func(script string, f func(t *testing.T)) {
		t.Run(script, func(t *testing.T) {
			f(t)
			mu.Lock()
			ran[script] = true
			mu.Unlock()
		})
	}

	check("meter_charge.lua", func(t *testing.T) {
		// Exact path, and leases of several keys (one pipelined script call per key and tick, on
		// different slots) from two edges: tokens_used is exact after both settle.
		lm1 := sredis.NewLeaseMeter(b.client, b.plans, sredis.LeaseOptions{})
		lm2 := sredis.NewLeaseMeter(setup(t, cl.URL()).client, b.plans, sredis.LeaseOptions{})
		runLeases(t, lm1)
		runLeases(t, lm2)
		var keys []account.IssuedKey
		for range 6 {
			keys = append(keys, b.newKey(t, account.PlanPro))
		}
		var wg sync.WaitGroup
		for i, lm := range []*sredis.LeaseMeter{lm1, lm2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range 600 {
					if _, err := lm.Charge(ctx, keys[(n+i)%len(keys)].Record.Hash, 2, time.Now()); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		for _, k := range keys {
			for _, lm := range []*sredis.LeaseMeter{lm1, lm2} {
				if err := lm.Flush(ctx, k.Record.Hash); err != nil {
					t.Fatal(err)
				}
			}
			st, err := b.keys.Store.MeterState(ctx, k.Record.Hash, account.PeriodOf(time.Now()))
			if err != nil || st.Used != 400 {
				t.Fatalf("key %s: %+v %v, want 400 used (2 x 100 charges x 2 edges)", k.Record.Prefix, st, err)
			}
		}
		// A Free key: exact charges to its allowance.
		k := b.newKey(t, account.PlanFree)
		var ok atomic.Int64
		for range 60 {
			if _, err := lm1.Charge(ctx, k.Record.Hash, 1, time.Now()); err == nil {
				ok.Add(1)
			}
		}
		if ok.Load() != 50 {
			t.Fatalf("free key served %d, want 50", ok.Load())
		}
	})

	check("meter_refund.lua", func(t *testing.T) {
		k := b.newKey(t, account.PlanStarter)
		ch, err := b.meter.Charge(ctx, k.Record.Hash, 10, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := b.meter.Refund(ctx, ch); err != nil {
			t.Fatal(err)
		}
		if st, _ := b.keys.Store.MeterState(ctx, k.Record.Hash, account.PeriodOf(time.Now())); st.Used != 0 {
			t.Fatalf("after the refund: %+v", st)
		}
		// A regenerated key carries the month's usage to its new meter.
		if _, err := b.meter.Charge(ctx, k.Record.Hash, 7, time.Now()); err != nil {
			t.Fatal(err)
		}
		nk, err := b.keys.Regenerate(ctx, k.Record)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := b.keys.Store.MeterState(ctx, nk.Record.Hash, account.PeriodOf(time.Now())); st.Used != 7 {
			t.Fatalf("regenerated key's meter: %+v", st)
		}
	})

	runs := sredis.NewRunStore(b.client)
	check("run_status.lua, run_progress.lua, run_put_item.lua, run_lease.lua, release_index.lua", func(t *testing.T) {
		id := "01900000-0000-7000-8000-00000000c1u5"
		now := time.Now().UTC()
		r := bulk.Run{ID: id, IndexName: "SP500", Status: bulk.Queued, Ruleset: "spec", CreatedAt: now, Owner: "u1"}
		if err := runs.CreateRun(ctx, r, []string{"AAPL", "MSFT"}); err != nil {
			t.Fatal(err)
		}
		if holder, ok, err := runs.ClaimIndex(ctx, "SP500", id, time.Minute); err != nil || !ok || holder != id {
			t.Fatalf("claim: %q %v %v", holder, ok, err)
		}
		if ok, err := runs.AcquireLease(ctx, id, "w1", 10*time.Second); err != nil || !ok {
			t.Fatalf("lease: %v %v", ok, err)
		}
		if ok, _ := runs.AcquireLease(ctx, id, "w2", 10*time.Second); ok {
			t.Fatal("a second worker took a held lease")
		}
		if ok, err := runs.RenewLease(ctx, id, "w1", 10*time.Second); err != nil || !ok {
			t.Fatalf("renew: %v %v", ok, err)
		}
		if ok, err := runs.SetStatus(ctx, id, bulk.Running, []string{bulk.Queued}, now, ""); err != nil || !ok {
			t.Fatalf("status: %v %v", ok, err)
		}
		for i, sym := range []string{"AAPL", "AAPL", "MSFT"} {
			wrote, err := runs.PutItem(ctx, id, bulk.Item{Symbol: sym, Status: "COMPLIANT"})
			if err != nil || wrote != (i != 1) {
				t.Fatalf("item %d %s: wrote %v, %v", i, sym, wrote, err)
			}
		}
		if err := runs.SetProgress(ctx, id, "MSFT", 2, 0, now); err != nil {
			t.Fatal(err)
		}
		got, ok, err := runs.Run(ctx, id)
		if err != nil || !ok || got.Processed != 2 || got.Status != bulk.Running || got.LeaseLeft <= 0 {
			t.Fatalf("run: %+v %v %v", got, ok, err)
		}
		if err := runs.ReleaseLease(ctx, id, "w1"); err != nil {
			t.Fatal(err)
		}
		if err := runs.ReleaseIndex(ctx, "SP500", id); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := runs.ClaimIndex(ctx, "SP500", "another", time.Minute); !ok {
			t.Fatal("the index was not released")
		}
		// Deleting removes the run's four keys in one DEL (one slot); the scripts then write nothing.
		if err := runs.DeleteRun(ctx, id); err != nil {
			t.Fatal(err)
		}
		if wrote, err := runs.PutItem(ctx, id, bulk.Item{Symbol: "KO"}); err != nil || wrote {
			t.Fatalf("item after delete: %v %v", wrote, err)
		}
		if ok, _ := runs.AcquireLease(ctx, id, "w3", time.Second); ok {
			t.Fatal("lease on a deleted run")
		}
		if err := runs.SetProgress(ctx, id, "KO", 3, 0, now); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := runs.Run(ctx, id); ok {
			t.Fatal("a deleted run came back")
		}
	})

	check("ingest lock (release_index.lua)", func(t *testing.T) {
		st := sredis.NewIngestStore(b.client)
		release, ok, err := st.TryLock(ctx, "prices", time.Minute)
		if err != nil || !ok {
			t.Fatalf("lock: %v %v", ok, err)
		}
		if _, ok, _ := st.TryLock(ctx, "prices", time.Minute); ok {
			t.Fatal("the lock was taken twice")
		}
		release()
		if _, ok, _ := st.TryLock(ctx, "prices", time.Minute); !ok {
			t.Fatal("the lock was not released")
		}
	})

	check("watchlist_create.lua, watchlist_add.lua, watchlist_remove.lua", func(t *testing.T) {
		st := sredis.NewWatchlistStore(b.client)
		// Users whose keys land on different masters.
		for _, user := range []string{"u-a", "u-b", "u-c", "u-d"} {
			w := account.Watchlist{ID: "0190-" + user, Name: "n", Symbols: []string{"MSFT"}, CreatedAt: time.Now().UTC()}
			if err := st.CreateWatchlist(ctx, user, w, 2); err != nil {
				t.Fatal(err)
			}
			if err := st.AddSymbol(ctx, user, w.ID, "KO", 2); err != nil {
				t.Fatal(err)
			}
			if err := st.AddSymbol(ctx, user, w.ID, "JNJ", 2); !errors.Is(err, account.ErrWatchlistFull) {
				t.Fatalf("past the limit: %v", err)
			}
			if ok, err := st.RemoveSymbol(ctx, user, w.ID, "MSFT"); err != nil || !ok {
				t.Fatalf("remove: %v %v", ok, err)
			}
			if got, ok, err := st.Watchlist(ctx, user, w.ID); err != nil || !ok || strings.Join(got.Symbols, ",") != "KO" {
				t.Fatalf("watchlist: %+v %v %v", got, ok, err)
			}
			if ok, err := st.DeleteWatchlist(ctx, user, w.ID); err != nil || !ok {
				t.Fatalf("delete: %v %v", ok, err)
			}
		}
	})

	check("webhook_create.lua, webhook_delete.lua, webhook_put.lua, webhook_delivery_create.lua", func(t *testing.T) {
		exerciseWebhookStore(t, b.client)
	})

	check("window_take.lua", func(t *testing.T) {
		wc := sredis.NewWindowCounter(b.client)
		limits := []account.WindowLimit{{Bucket: "address:10.0.0.1", Limit: 2}, {Bucket: "email_domain:example.com", Limit: 3}}
		for i, want := range []int{-1, -1, 0} {
			refused, _, err := wc.Take(ctx, "keygen", time.Minute, limits...)
			if err != nil || refused != want {
				t.Fatalf("take %d: refused %d, %v; want %d", i, refused, err, want)
			}
		}
	})

	check("replace_if_equal.lua", func(t *testing.T) {
		// A quote stored without its body (as an older binary stores it) is served and backfilled with
		// it (compare-and-set); TestServedReadsOnRedisCluster covers the rest of the served reads.
		for _, sym := range []string{"AAPL", "MSFT", "7203.T", "KO"} {
			q := market.Quote{Symbol: sym, Name: sym, Currency: "USD", Price: 1_000_000, AsOf: "2026-10-30", Source: shariah.SourceIllustrative}
			if err := sredis.NewRefStore(b.client).PutQuote(ctx, q); err != nil {
				t.Fatal(err)
			}
			bodies := market.NewQuoteBodies(nil)
			if _, ok, err := sredis.NewRefStore(b.client).ServedQuote(ctx, sym, bodies); err != nil || !ok {
				t.Fatalf("%s: %v %v", sym, ok, err)
			}
			raw, err := b.client.Do(ctx, b.client.B().Get().Key("shr:quote:{"+sym+"}").Build()).ToString()
			if err != nil || !strings.HasPrefix(raw, `{"_served":`) {
				t.Fatalf("%s not backfilled: %.60s %v", sym, raw, err)
			}
		}
	})

	// Paths of several commands over different slots (pipelined per slot by rueidis).
	t.Run("billing, popularity", func(t *testing.T) {
		bs := sredis.NewBillingStore(b.client)
		at := time.Now().Add(-time.Minute).UTC()
		if err := bs.PutSubscription(ctx, account.Subscription{UserID: "u1", Customer: "cus_1", Plan: "pro", DowngradeAt: &at}); err != nil {
			t.Fatal(err)
		}
		if due, err := bs.DueDowngrades(ctx, time.Now()); err != nil || !slices.Contains(due, "u1") {
			t.Fatalf("due: %v %v", due, err)
		}
		if u, ok, err := bs.UserOfCustomer(ctx, "cus_1"); err != nil || !ok || u != "u1" {
			t.Fatalf("customer: %q %v %v", u, ok, err)
		}
		if first, err := bs.MarkEvent(ctx, "evt_1"); err != nil || !first {
			t.Fatalf("mark: %v %v", first, err)
		}
		if again, _ := bs.MarkEvent(ctx, "evt_1"); again {
			t.Fatal("an event marked twice")
		}
		ps := sredis.NewPopularityStore(b.client)
		now := time.Now()
		if err := ps.AddRequests(ctx, map[string]int64{"AAPL": 3, "MSFT": 5}, now.AddDate(0, 0, -1)); err != nil {
			t.Fatal(err)
		}
		if err := ps.AddRequests(ctx, map[string]int64{"AAPL": 4}, now); err != nil {
			t.Fatal(err)
		}
		if top, err := ps.MostRequested(ctx, 2, 7, now); err != nil || strings.Join(top, ",") != "AAPL,MSFT" {
			t.Fatalf("most requested: %v %v", top, err)
		}
	})

	check("result_put.lua change_add.lua change_settle.lua", func(t *testing.T) {
		changeLogOnCluster(t, b.client)
	})

	scripts, err := os.ReadDir("lua")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range ran {
		names = append(names, name)
	}
	all := strings.Join(names, ", ")
	for _, s := range scripts {
		if !strings.Contains(all, s.Name()) {
			t.Errorf("%s has no passing case on the cluster in this test", s.Name())
		}
	}
}
