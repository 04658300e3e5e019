package edge_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestRateLimitedRequestsAnswer429: past its plan's burst a key gets 429 RATE_LIMITED with Retry-After
// and the X-RateLimit-* headers, is charged nothing, and the plans list documents every plan's rate.
func TestRateLimitedRequestsAnswer429(t *testing.T) {
	t.Parallel()
	plans := account.DefaultPlans()
	for i := range plans {
		if plans[i].ID == account.PlanPro {
			// One more every 100 s: nothing refills during the test however slowly it runs, so the
			// remaining counts are exact.
			plans[i].RateLimit = account.RateLimit{RequestsPerSecond: 0.01, Burst: 3}
		}
	}
	e := setup(t, options{plans: plans, costs: map[string]int{"GET /api/keys/plans": 2}})
	k := e.newKey(t, account.PlanPro)
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
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 100 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	d := r.json(t)["detail"].(map[string]any)
	if d["plan"] != "pro" || d["requests_per_second"] != 0.01 || d["burst"] != float64(3) {
		t.Fatalf("detail %v", d)
	}
	st, err := e.store.MeterState(context.Background(), k.Record.Hash, account.PeriodOf(time.Now()))
	if err != nil || st.Used != 6 {
		t.Fatalf("tokens used %d after 3 served and 1 refused (2 tokens each): %v", st.Used, err)
	}
	pl := e.do(t, "GET", "/api/keys/plans", nil, key(e.newKey(t, account.PlanEnterprise))).json(t)
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
	t.Parallel()
	gen := func(e *env, email string) response {
		return e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, nil)
	}
	e := setup(t, options{keygenLimits: account.IssueLimits{PerAddress: 3, PerDomain: 100, Window: time.Hour}})
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

	e = setup(t, options{keygenLimits: account.IssueLimits{PerAddress: 100, PerDomain: 2, Window: time.Hour}})
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

// TestKeyGenerationLimitsChargeOnlyWhatTheyServe: a request the domain limit refuses is not counted
// against the address (both limits are taken in one script, all or none).
func TestKeyGenerationLimitsChargeOnlyWhatTheyServe(t *testing.T) {
	t.Parallel()
	e := setup(t, options{keygenLimits: account.IssueLimits{PerAddress: 2, PerDomain: 1, Window: time.Hour}})
	gen := func(email string) response {
		return e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, nil)
	}
	if r := gen("a@one.test"); r.StatusCode != 200 {
		t.Fatalf("first key: %d %s", r.StatusCode, r.body)
	}
	for range 5 { // refused by the domain: the address keeps its one hit
		if r := gen("b@one.test"); r.StatusCode != http.StatusTooManyRequests || r.json(t)["detail"].(map[string]any)["scope"] != "email_domain" {
			t.Fatalf("second key of one.test: %d %s", r.StatusCode, r.body)
		}
	}
	if r := gen("c@two.test"); r.StatusCode != 200 {
		t.Fatalf("the address's second key (domain refusals must not count against it): %d %s", r.StatusCode, r.body)
	}
	if r := gen("d@three.test"); r.StatusCode != http.StatusTooManyRequests || r.json(t)["detail"].(map[string]any)["scope"] != "address" {
		t.Fatalf("the address's third key: %d %s", r.StatusCode, r.body)
	}
	// The address refusal did not count against three.test either.
	if n, err := e.rc.Do(context.Background(), e.rc.B().Get().Key("shr:window:{keygen}:email_domain:three.test").Build()).AsInt64(); err == nil || n != 0 {
		t.Fatalf("three.test counted %d after an address refusal (%v)", n, err)
	}
}

// TestKeyGenerationAddressBehindProxies: X-Forwarded-For names the client only when the peer is a
// trusted proxy, and then its right-most untrusted entry (a forged left part changes nothing); IPv6
// clients count by /64.
func TestKeyGenerationAddressBehindProxies(t *testing.T) {
	t.Parallel()
	gen := func(e *env, email, xff string) response {
		h := hdr{}
		if xff != "" {
			h["X-Forwarded-For"] = xff
		}
		return e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, h)
	}
	limits := account.IssueLimits{PerAddress: 2, PerDomain: 1000, Window: time.Hour}
	// No trusted proxy (the default): the header is ignored, every request is the peer's.
	e := setup(t, options{keygenLimits: limits})
	for i, xff := range []string{"198.51.100.1", "198.51.100.2"} {
		if r := gen(e, fmt.Sprintf("n%d@example.com", i), xff); r.StatusCode != 200 {
			t.Fatalf("key %d: %d %s", i, r.StatusCode, r.body)
		}
	}
	if r := gen(e, "n3@example.com", "198.51.100.3"); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("an untrusted peer chose its address with X-Forwarded-For: %d %s", r.StatusCode, r.body)
	}

	// The test peer (0.0.0.0) and 10.0.0.0/8 are trusted proxies.
	e = setup(t, options{keygenLimits: limits, trustedProxies: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32"), netip.MustParsePrefix("10.0.0.0/8")}})
	for i, xff := range []string{"203.0.113.7", "6.6.6.6, 203.0.113.7, 10.1.1.1"} { // a forged first entry, then a second proxy
		if r := gen(e, fmt.Sprintf("p%d@example.com", i), xff); r.StatusCode != 200 {
			t.Fatalf("key %d via proxies: %d %s", i, r.StatusCode, r.body)
		}
	}
	if r := gen(e, "p2@example.com", "7.7.7.7, 203.0.113.7"); r.StatusCode != http.StatusTooManyRequests || r.json(t)["detail"].(map[string]any)["scope"] != "address" {
		t.Fatalf("third key of 203.0.113.7 behind proxies: %d %s", r.StatusCode, r.body)
	}
	if r := gen(e, "p3@example.com", "203.0.113.8"); r.StatusCode != 200 {
		t.Fatalf("another client behind the proxy: %d %s", r.StatusCode, r.body)
	}
	// IPv6: one /64 is one client.
	for i, xff := range []string{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe"} {
		if r := gen(e, fmt.Sprintf("v%d@example.com", i), xff); r.StatusCode != 200 {
			t.Fatalf("IPv6 key %d: %d %s", i, r.StatusCode, r.body)
		}
	}
	if r := gen(e, "v2@example.com", "2001:db8:1:2:abcd::9"); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third address of the same /64: %d %s", r.StatusCode, r.body)
	}
	if r := gen(e, "v3@example.com", "2001:db8:1:3::1"); r.StatusCode != 200 {
		t.Fatalf("another /64: %d %s", r.StatusCode, r.body)
	}
}

// TestKeyGenerationDuringRedisOutage: with the edge's Redis stopped, POST /api/keys/generate answers
// 503 SERVICE_UNAVAILABLE with Retry-After (never 500), and issues keys again once Redis is back.
func TestKeyGenerationDuringRedisOutage(t *testing.T) {
	t.Parallel()
	own := testsvc.MustRedis(t)
	e := setup(t, options{redisURL: own.RedisURL(), keygenLimits: account.IssueLimits{PerAddress: 100, PerDomain: 100, Window: time.Hour}})
	if r := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": uniqueEmail()}, nil); r.StatusCode != 200 {
		t.Fatalf("before the outage: %d %s", r.StatusCode, r.body)
	}
	own.Stop()
	for range 5 {
		r := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": uniqueEmail()}, nil)
		if r.StatusCode != http.StatusServiceUnavailable || r.errCode(t) != shariah.EUNAVAILABLE || r.Header.Get("Retry-After") == "" {
			t.Fatalf("during the outage: %d %v %s", r.StatusCode, r.Header, r.body)
		}
	}
	// Without limits configured, the key store alone is the dependency: also 503.
	e.keys.Counter = nil
	if r := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": uniqueEmail()}, nil); r.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("key store down: %d %s", r.StatusCode, r.body)
	}
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "keys issued again after Redis returns", func() bool {
		return e.do(t, "POST", "/api/keys/generate", map[string]any{"email": uniqueEmail()}, nil).StatusCode == 200
	})
}
