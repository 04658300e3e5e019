package main

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestLeaseEdgeKilledNeverUnderCounts: an edge process is killed with SIGKILL under load, holding a
// token lease with spending it never settled. Once its lease lapses (SHARIAH_METER_LEASE_TTL), the next
// script call on the key counts it whole: tokens_used is then the used and leased figure of the moment
// of the kill (plus what the other edge served after it), never less than the tokens the killed edge
// answered, and over by at most what it held.
func TestLeaseEdgeKilledNeverUnderCounts(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	if out, err := s.command([]string{"migrate"}).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	env := []string{"SHARIAH_BENCH_ROUTES=true", "SHARIAH_METER_LEASE_TTL=1s", "SHARIAH_LOG_LEVEL=warn"}
	a, b := startEdge(t, s, env...), startEdge(t, s, env...)
	out, err := s.command([]string{"keys", "create", "--email", "lease-kill@example.com", "--plan", "pro"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	apiKey := strings.TrimSpace(string(out))
	get := func(base, path string) (int, int64) {
		r := api{t: t, base: base}.do("GET", path, apiKey, nil)
		return r.status, r.tokens()
	}

	// Load on edge A until it is killed: answered tokens are counted from X-Tokens-Charged.
	var servedA atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if st, n := get(a.base, "/bench/metered"); st == 200 {
					servedA.Add(n)
				}
			}
		}()
	}
	waitFor(t, "edge A to serve 2,000 tokens", func() bool { return servedA.Load() >= 2000 })
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	close(stop)
	wg.Wait()

	rc, err := sredis.Open(s.redis.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ctx := context.Background()
	hash := shariah.HashKey(apiKey)
	meter := func() shariah.MeterState {
		st, err := sredis.NewKeyStore(rc).MeterState(ctx, hash, shariah.PeriodOf(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	atKill := meter()
	if atKill.Leased == 0 {
		t.Fatalf("edge A held no lease when killed: %+v", atKill)
	}
	// Edge B serves the key; its script calls sweep A's lease once it lapsed. GET /api/auth/me settles
	// B's own spending first, so the meter can be compared exactly.
	var servedB int64
	waitFor(t, "edge A's lease to lapse into used", func() bool {
		for _, path := range []string{"/bench/metered", "/api/auth/me"} {
			if st, n := get(b.base, path); st == 200 {
				servedB += n
			}
		}
		return meter().Used == atKill.Used+atKill.Leased+servedB
	})
	final := meter()
	if final.Used < servedA.Load()+servedB {
		t.Fatalf("under-count: tokens_used %d < %d served by A and %d by B", final.Used, servedA.Load(), servedB)
	}
	t.Logf("A answered %d tokens; counted %d (over-count %d, bound: A's lease %d)", servedA.Load(), atKill.Used+atKill.Leased,
		atKill.Used+atKill.Leased-servedA.Load(), atKill.Leased)
}
