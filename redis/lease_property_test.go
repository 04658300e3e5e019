package redis_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestLeaseMetersProperty drives three LeaseMeters (three edges) on one key of a real Redis at once:
// charges of 0-4 tokens, refunds, plan changes (pro, starter, enterprise, free with its hard block)
// with Forget on one edge, settle loops paused past the lease lifetime (a live edge's lease lapses and
// is revived) and edges killed (their settle loop stopped without a give-back, a new edge in their
// place). At quiesced checkpoints (every edge Flushed) it asserts the lease accounting exactly:
// used + leased = served + what killed edges held + what live edges hold, and so the invariant
// used + unsettled >= served and used <= served + what killed edges held. At the end, every live edge
// gives its leases back and the killed ones lapse: used = served + what killed edges held, exactly.
// It runs for about a second; SHARIAH_STRESS=1 (make stress) runs it for SHARIAH_STRESS_PROPERTY
// (default 90s).
func TestLeaseMetersProperty(t *testing.T) {
	t.Parallel()
	run, checkEvery := 1200*time.Millisecond, 300*time.Millisecond
	if os.Getenv("SHARIAH_STRESS") == "1" {
		run, checkEvery = 90*time.Second, 2*time.Second
		if d, err := time.ParseDuration(os.Getenv("SHARIAH_STRESS_PROPERTY")); err == nil {
			run = d
		}
	}
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	k := b.newKey(t, account.PlanPro)
	hash := k.Record.Hash
	ctx := context.Background()
	opt := sredis.LeaseOptions{Interval: 10 * time.Millisecond, TTL: 60 * time.Millisecond}

	// gate: every charge, refund and tick holds it shared; checkpoints and kills hold it alone
	var gate sync.RWMutex
	type edge struct {
		m      *sredis.LeaseMeter
		paused atomic.Bool // its settle loop is paused
		stop   chan struct{}
		done   chan struct{}
	}
	var served, killedHeld, kills, pauses, plans, refunds atomic.Int64
	edges := make([]atomic.Pointer[edge], 3)
	startEdge := func(i int) {
		e := &edge{m: sredis.NewLeaseMeter(b.client, b.plans, opt), stop: make(chan struct{}), done: make(chan struct{})}
		go func() { // the settle loop (Run's, driven here so that a kill can stop it without its give-back)
			defer close(e.done)
			tk := time.NewTicker(opt.Interval)
			defer tk.Stop()
			for {
				select {
				case <-e.stop:
					return
				case <-tk.C:
				}
				if e.paused.Load() {
					continue
				}
				if !gate.TryRLock() {
					continue // a checkpoint or a kill (which waits for this loop to end) holds it
				}
				if err := sredis.Tick(ctx, e.m, false); err != nil {
					t.Errorf("tick: %v", err)
				}
				gate.RUnlock()
			}
		}()
		edges[i].Store(e)
	}
	for i := range edges {
		startEdge(i)
	}

	end := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 6 { // two workers an edge
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for {
				select {
				case <-end:
					return
				default:
				}
				gate.RLock()
				m := edges[w%3].Load().m
				ch, err := m.Charge(ctx, hash, r.IntN(5), time.Now())
				switch {
				case err == nil:
					served.Add(int64(ch.Tokens))
					if r.IntN(5) == 0 {
						if err := m.Refund(ctx, ch); err != nil {
							t.Errorf("refund: %v", err)
						}
						served.Add(-int64(ch.Tokens))
						refunds.Add(1)
					}
				case isQuota(err):
				default:
					t.Errorf("charge: %v", err)
				}
				gate.RUnlock()
			}
		}()
	}

	// the state of the lease accounting, quiesced: every live edge flushed
	check := func(what string) {
		for i := range edges {
			if err := edges[i].Load().m.Flush(ctx, hash); err != nil {
				t.Fatal(err)
			}
		}
		var liveHeld int64
		for i := range edges {
			liveHeld += sredis.Held(edges[i].Load().m, hash)
		}
		st := meterState(t, b, hash)
		if st.Used+st.Leased != served.Load()+killedHeld.Load()+liveHeld {
			t.Fatalf("%s: used %d + leased %d, want served %d + held by killed edges %d + held by live edges %d",
				what, st.Used, st.Leased, served.Load(), killedHeld.Load(), liveHeld)
		}
		if st.Used > served.Load()+killedHeld.Load() {
			t.Fatalf("%s: used %d past served %d + held by killed edges %d", what, st.Used, served.Load(), killedHeld.Load())
		}
	}

	r := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	allPlans := []string{account.PlanPro, account.PlanStarter, account.PlanEnterprise, account.PlanFree, account.PlanPro}
	started, lastCheck := time.Now(), time.Now()
	for time.Since(started) < run {
		time.Sleep(time.Duration(5+r.IntN(25)) * time.Millisecond) // pacing of the events, not a wait for a state
		switch i := r.IntN(3); r.IntN(4) {
		case 0: // a plan change made through one edge (the others learn it through Redis's invalidation)
			if err := b.keys.Store.SetPlan(ctx, hash, allPlans[r.IntN(len(allPlans))]); err != nil {
				t.Fatal(err)
			}
			edges[i].Load().m.Forget(hash)
			plans.Add(1)
		case 1: // a settle loop paused for up to seven lease lifetimes: its leases lapse, the edge lives
			e := edges[i].Load()
			if e.paused.CompareAndSwap(false, true) {
				pauses.Add(1)
				time.AfterFunc(time.Duration(r.IntN(400))*time.Millisecond, func() { e.paused.Store(false) })
			}
		case 2: // an edge killed: its settle loop stops without a give-back; a new edge takes its place
			if r.IntN(4) != 0 {
				continue
			}
			gate.Lock()
			e := edges[i].Load()
			close(e.stop)
			<-e.done
			killedHeld.Add(sredis.Held(e.m, hash))
			startEdge(i)
			kills.Add(1)
			gate.Unlock()
		case 3:
		}
		if time.Since(lastCheck) > checkEvery {
			gate.Lock()
			check("checkpoint")
			gate.Unlock()
			lastCheck = time.Now()
		}
	}
	close(end)
	wg.Wait()
	gate.Lock()
	defer gate.Unlock()
	check("end")
	for i := range edges {
		e := edges[i].Load()
		e.paused.Store(false)
		close(e.stop)
		<-e.done
		if err := sredis.Tick(ctx, e.m, true); err != nil {
			t.Fatal(err)
		}
	}
	st := waitNoLeases(t, b, hash)
	if st.Used != served.Load()+killedHeld.Load() {
		t.Fatalf("at the end: used %d, want served %d + held by killed edges %d", st.Used, served.Load(), killedHeld.Load())
	}
	t.Logf("%v: %d tokens served (%d refunds), %d plan changes, %d settle loops paused, %d edges killed holding %d tokens; used %d",
		run, served.Load(), refunds.Load(), plans.Load(), pauses.Load(), kills.Load(), killedHeld.Load(), st.Used)
}

func isQuota(err error) bool {
	var se *shariah.Error
	return errors.As(err, &se) && se.Code == shariah.EQUOTA
}
