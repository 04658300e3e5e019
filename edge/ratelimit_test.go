package edge_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// TestRateLimitedRequestsAnswer429: past its plan's burst a key gets 429 RATE_LIMITED with Retry-After
// and the X-RateLimit-* headers, is charged nothing, and the plans list documents every plan's rate.
func TestRateLimitedRequestsAnswer429(t *testing.T) {
	plans := shariah.DefaultPlans()
	for i := range plans {
		if plans[i].ID == shariah.PlanPro {
			plans[i].RateLimit = shariah.RateLimit{RequestsPerSecond: 0.5, Burst: 3} // one more every 2 s
		}
	}
	e := setup(t, options{plans: plans, costs: map[string]int{"GET /api/keys/plans": 2}})
	k := e.newKey(t, shariah.PlanPro)
	for i := range 3 {
		r := e.do(t, "GET", "/api/keys/plans", nil, key(k))
		if r.StatusCode != 200 || r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) ||
			r.Header.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i, r.StatusCode, r.Header)
		}
	}
	r := e.do(t, "GET", "/api/keys/plans", nil, key(k))
	if r.StatusCode != http.StatusTooManyRequests || r.errCode(t) != shariah.ERATELIMITED || r.Header.Get("X-Tokens-Charged") != "0" ||
		r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("past the burst: %d %v %s", r.StatusCode, r.Header, r.body)
	}
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	d := r.json(t)["detail"].(map[string]any)
	if d["plan"] != "pro" || d["requests_per_second"] != 0.5 || d["burst"] != float64(3) {
		t.Fatalf("detail %v", d)
	}
	st, err := e.store.MeterState(context.Background(), k.Record.Hash, shariah.PeriodOf(time.Now()))
	if err != nil || st.Used != 6 {
		t.Fatalf("tokens used %d after 3 served and 1 refused (2 tokens each): %v", st.Used, err)
	}
	pl := e.do(t, "GET", "/api/keys/plans", nil, key(e.newKey(t, shariah.PlanEnterprise))).json(t)
	for _, p := range pl["plans"].([]any) {
		p := p.(map[string]any)
		rl, _ := p["rate_limit"].(map[string]any)
		want, _ := plans.Lookup(p["id"].(string))
		if rl == nil || rl["requests_per_second"] != want.RateLimit.RequestsPerSecond || rl["burst"] != float64(want.RateLimit.Burst) {
			t.Fatalf("plan %s rate_limit %v, want %+v", p["id"], p["rate_limit"], want.RateLimit)
		}
	}
}

// TestKeyGenerationIsLimitedPerAddressAndDomain: free keys per client address and per email domain.
func TestKeyGenerationIsLimitedPerAddressAndDomain(t *testing.T) {
	gen := func(e *env, email string) response {
		return e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, nil)
	}
	e := setup(t, options{keygenLimits: shariah.IssueLimits{PerAddress: 3, PerDomain: 100, Window: time.Hour}})
	for i := range 3 {
		if r := gen(e, fmt.Sprintf("addr%d@example.com", i)); r.StatusCode != 200 {
			t.Fatalf("key %d: %d %s", i, r.StatusCode, r.body)
		}
	}
	r := gen(e, "addr3@example.com")
	if r.StatusCode != http.StatusTooManyRequests || r.errCode(t) != shariah.ERATELIMITED || r.Header.Get("Retry-After") == "" ||
		r.json(t)["detail"].(map[string]any)["scope"] != "address" {
		t.Fatalf("fourth key from one address: %d %v %s", r.StatusCode, r.Header, r.body)
	}

	e = setup(t, options{keygenLimits: shariah.IssueLimits{PerAddress: 100, PerDomain: 2, Window: time.Hour}})
	for _, m := range []string{"a@spam.test", "b@spam.test"} {
		if r := gen(e, m); r.StatusCode != 200 {
			t.Fatalf("%s: %d %s", m, r.StatusCode, r.body)
		}
	}
	if r := gen(e, "c@spam.test"); r.StatusCode != http.StatusTooManyRequests || r.json(t)["detail"].(map[string]any)["scope"] != "email_domain" {
		t.Fatalf("third key of one domain: %d %s", r.StatusCode, r.body)
	}
	if r := gen(e, "d@other.test"); r.StatusCode != 200 {
		t.Fatalf("another domain: %d %s", r.StatusCode, r.body)
	}
}
