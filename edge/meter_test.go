package edge_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah/account"
	sredis "github.com/shariah-screen/shariah/redis"
)

// tally counts the answers of a burst: 200s (and the tokens their X-Tokens-Charged sum to, and how many
// carried X-Tokens-Overage), and 429s.
type tally struct{ ok, refused, overage, tokens int64 }

// hammer sends n concurrent requests, alternating between the edges, and tallies the answers; any
// other status fails the test.
func hammer(t *testing.T, edges []*env, n int, path string, k account.IssuedKey) tally {
	t.Helper()
	var wg sync.WaitGroup
	var okN, refN, ovN, tokN atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := edges[i%len(edges)].do(t, "GET", path, nil, key(k))
			switch r.StatusCode {
			case 200:
				okN.Add(1)
				if r.Header.Get("X-Tokens-Overage") == "true" {
					ovN.Add(1)
				}
				c, err := strconv.Atoi(r.Header.Get("X-Tokens-Charged"))
				if err != nil {
					t.Errorf("X-Tokens-Charged %q", r.Header.Get("X-Tokens-Charged"))
				}
				tokN.Add(int64(c))
			case 429:
				refN.Add(1)
			default:
				t.Errorf("status %d: %s", r.StatusCode, r.body)
			}
		}()
	}
	wg.Wait()
	return tally{okN.Load(), refN.Load(), ovN.Load(), tokN.Load()}
}

// TestMeterUnderContentionAcrossTwoEdges: 600 concurrent requests on one Free key through two edge
// instances sharing one Redis: exactly allowance/cost succeed, never more, and tokens_used ends exactly
// at the allowance.
func TestMeterUnderContentionAcrossTwoEdges(t *testing.T) {
	t.Parallel()
	costs := map[string]int{"GET /api/keys/plans": 2}
	a := setup(t, options{costs: costs})
	b := setup(t, options{costs: costs, db: a.db, redisURL: a.redisURL})
	k := a.newKey(t, account.PlanFree)
	r := hammer(t, []*env{a, b}, 600, "/api/keys/plans", k)
	if r.ok != 25 || r.refused != 575 {
		t.Fatalf("ok=%d refused=%d; want exactly 25 (50 tokens / 2) and 575", r.ok, r.refused)
	}
	me := b.do(t, "GET", "/api/auth/me", nil, key(k)).json(t)
	q := me["quota"].(map[string]any)
	if q["tokens_used"] != 50.0 || q["tokens_limit"] != 50.0 || q["tokens_remaining"] != 0.0 {
		t.Fatalf("quota after contention: %v", q)
	}
}

// TestPaidPlanOverageUnderContention: past a paid allowance every request is served and carries
// X-Tokens-Overage: true, and the overage is counted exactly. With the exact meter exactly the requests
// past the allowance carry the header; with token leases the month's overage is as exact, but across edges
// a request near the allowance can be flagged while another edge still holds allowance it spends after
// (at most what the edges hold then: a quarter of the remaining allowance per holder).
func TestPaidPlanOverageUnderContention(t *testing.T) {
	t.Parallel()
	plans := plansWith(account.PlanStarter, 100)
	for _, exact := range []bool{true, false} {
		t.Run(map[bool]string{true: "exact", false: "leases"}[exact], func(t *testing.T) {
			t.Parallel()
			costs := map[string]int{"GET /api/keys/plans": 2}
			a := setup(t, options{costs: costs, plans: plans, exactMeter: exact})
			b := setup(t, options{costs: costs, plans: plans, db: a.db, redisURL: a.redisURL, exactMeter: exact})
			k := a.newKey(t, account.PlanStarter)
			r := hammer(t, []*env{a, b}, 500, "/api/keys/plans", k)
			ok, refused, overage := r.ok, r.refused, r.overage
			maxFlags := int64(450)
			if !exact {
				maxFlags += 100 / 4 / 2 // the most allowance another edge can hold, in requests of 2 tokens
			}
			if ok != 500 || refused != 0 || overage < 450 || overage > maxFlags {
				t.Fatalf("ok=%d refused=%d overage-headers=%d; want 500, 0, 450 to %d (the first 50 fit in 100 tokens)", ok, refused, overage, maxFlags)
			}
			wantCost := decimal.RequireFromString("0.01").Mul(decimal.NewFromInt(900)).StringFixed(2)
			var q map[string]any
			waitFor(t, 5*time.Second, "both edges' spending settled", func() bool {
				q = a.do(t, "GET", "/api/auth/me", nil, key(k)).json(t)["quota"].(map[string]any)
				return q["tokens_used"] == 1000.0
			})
			if q["overage_tokens"] != 900.0 || q["overage_cost_usd"] != wantCost || q["tokens_remaining"] != 0.0 {
				t.Fatalf("quota %v, want used 1000, overage 900 costing %s", q, wantCost)
			}
		})
	}
}

func TestEnterpriseIsUnlimited(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 2}})
	k := e.newKey(t, account.PlanEnterprise)
	r := e.do(t, "GET", "/api/keys/plans", nil, key(k))
	if r.StatusCode != 200 || r.Header.Get("X-Tokens-Remaining") != "-1" || r.Header.Get("X-Tokens-Charged") != "2" || r.Header.Get("X-Tokens-Overage") != "" {
		t.Fatalf("%d %v", r.StatusCode, r.Header)
	}
}

// TestRevokedKeyRefusedOnNextRequest and the meter's survival of an emptied script cache.
func TestRevokedKeyAndScriptFlush(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 1}})
	k := e.newKey(t, account.PlanPro)
	if r := e.do(t, "GET", "/api/keys/plans", nil, key(k)); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
	rc, err := sredis.Open(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := rc.Do(context.Background(), rc.B().ScriptFlush().Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if r := e.do(t, "GET", "/api/keys/plans", nil, key(k)); r.StatusCode != 200 || r.Header.Get("X-Tokens-Charged") != "1" {
		t.Fatalf("after SCRIPT FLUSH: %d %s", r.StatusCode, r.body)
	}
	// Revoked by this process (operator path): refused on the very next request here (the store tells
	// the lease meter); other edges see it when Redis's invalidation arrives (TestLeaseRevokeSeenByBothEdges).
	if _, err := e.keys.Revoke(context.Background(), k.Record.Prefix, &k.Record); err != nil {
		t.Fatal(err)
	}
	if r := e.do(t, "GET", "/api/keys/plans", nil, key(k)); r.StatusCode != 403 {
		t.Fatalf("revoked key: %d", r.StatusCode)
	}
}
