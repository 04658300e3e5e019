package edge_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// TestUsageAnalyticsRoutes: requests of three keys go through the edge (a free key exhausts its quota,
// a starter key goes into overage), then the operator routes answer them from the aggregates (shapes
// validated against the OpenAPI document by do), and the caller's own breakdown sees only its account.
func TestUsageAnalyticsRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 10, "GET /api/keys/token-costs": 1000}})
	free := e.newKey(t, account.PlanFree)
	starter := e.newKey(t, account.PlanStarter)
	op := e.newKey(t, account.PlanInternal)
	for i := range 6 { // 50 tokens: 5 succeed, the 6th is refused with QUOTA_EXCEEDED
		want := http.StatusOK
		if i == 5 {
			want = http.StatusTooManyRequests
		}
		if r := e.do(t, "GET", "/api/keys/plans", nil, key(free)); r.StatusCode != want {
			t.Fatalf("free request %d: %d %s", i, r.StatusCode, r.body)
		}
	}
	for i := range 3 { // 2500 tokens: the third charges 500 beyond the allowance
		if r := e.do(t, "GET", "/api/keys/token-costs", nil, key(starter)); r.StatusCode != 200 || (i == 2) != (r.Header.Get("X-Tokens-Overage") == "true") {
			t.Fatalf("starter request %d: %d %v", i, r.StatusCode, r.Header)
		}
	}
	if err := e.writer.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	get := func(path string, k account.IssuedKey) map[string]any {
		t.Helper()
		r := e.do(t, "GET", path, nil, key(k))
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, r.StatusCode, r.body)
		}
		return r.json(t)
	}

	t.Run("usage by route, one plan", func(t *testing.T) {
		b := get("/api/analytics/usage?group_by=route&granularity=hour&plan=free", op)
		series := b["series"].([]any)
		if len(series) != 1 {
			t.Fatalf("series %v", series)
		}
		s := series[0].(map[string]any)
		p := s["points"].([]any)[0].(map[string]any)
		if s["group"] != "/api/keys/plans" || p["requests"] != 6.0 || p["tokens"] != 50.0 || p["errors_4xx"] != 1.0 || p["errors_5xx"] != 0.0 {
			t.Fatalf("series %v", s)
		}
		if tot := b["totals"].(map[string]any); tot["requests"] != 6.0 || b["granularity"] != "hour" || b["group_by"] != "route" {
			t.Fatalf("body %v", b)
		}
	})
	t.Run("routes", func(t *testing.T) {
		routes := get("/api/analytics/routes?plan=starter", op)["routes"].([]any)
		if len(routes) != 1 {
			t.Fatalf("routes %v", routes)
		}
		r := routes[0].(map[string]any)
		if r["route"] != "/api/keys/token-costs" || r["method"] != "GET" || r["requests"] != 3.0 || r["tokens"] != 3000.0 || r["error_rate"] != 0.0 {
			t.Fatalf("route %v", r)
		}
	})
	t.Run("top keys", func(t *testing.T) {
		keys := get("/api/analytics/top-keys?limit=2", op)["keys"].([]any)
		if len(keys) != 2 {
			t.Fatalf("keys %v", keys)
		}
		first, second := keys[0].(map[string]any), keys[1].(map[string]any)
		if first["key_prefix"] != starter.Record.Prefix || first["plan"] != "starter" || first["tokens"] != 3000.0 || first["overage_tokens"] != 500.0 ||
			second["key_prefix"] != free.Record.Prefix || second["tokens"] != 50.0 || second["errors"] != 1.0 {
			t.Fatalf("top keys %v", keys)
		}
		for _, k := range keys {
			if k.(map[string]any)["key_prefix"] == starter.Key || k.(map[string]any)["key_prefix"] == free.Key {
				t.Fatal("a full key in top keys")
			}
		}
	})
	t.Run("quota events", func(t *testing.T) {
		events := get("/api/analytics/quota-events", op)["events"].([]any)
		kinds := map[string]map[string]any{}
		for _, ev := range events {
			ev := ev.(map[string]any)
			kinds[ev["kind"].(string)] = ev
		}
		if q := kinds[account.QuotaExhausted]; len(events) != 2 || q["key_prefix"] != free.Record.Prefix || q["plan"] != "free" || q["requests"] != 1.0 {
			t.Fatalf("events %v", events)
		}
		if o := kinds[account.OverageStarted]; o["key_prefix"] != starter.Record.Prefix || o["requests"] != 1.0 {
			t.Fatalf("events %v", events)
		}
	})
	t.Run("the caller's routes are its own", func(t *testing.T) {
		routes := get("/api/auth/me/usage/routes", free)["routes"].([]any)
		for _, r := range routes {
			if r.(map[string]any)["route"] == "/api/keys/token-costs" {
				t.Fatalf("the free key sees another account's route: %v", routes)
			}
		}
		if len(routes) != 1 || routes[0].(map[string]any)["requests"] != 6.0 {
			t.Fatalf("routes %v", routes)
		}
	})
}

// TestUsageAnalyticsRefusals: a key that is not an operator's gets 403 on every operator route (before
// its parameters are read); every bad parameter is a 422 naming its field.
func TestUsageAnalyticsRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	pro := e.newKey(t, account.PlanPro)
	op := e.newKey(t, account.PlanInternal)
	for _, p := range []string{"/api/analytics/usage", "/api/analytics/routes", "/api/analytics/top-keys", "/api/analytics/quota-events",
		"/api/analytics/usage?granularity=week"} {
		if r := e.do(t, "GET", p, nil, key(pro)); r.StatusCode != http.StatusForbidden || r.errCode(t) != shariah.EFORBIDDEN {
			t.Fatalf("%s with a pro key: %d %s", p, r.StatusCode, r.body)
		}
	}
	day := func(d time.Duration) string { return time.Now().UTC().Add(d).Format("2006-01-02") }
	for _, c := range []struct{ path, field string }{
		{"/api/analytics/usage?from=" + day(-400*24*time.Hour) + "&to=" + day(-1*24*time.Hour), "to"}, // 399 days
		{"/api/analytics/usage?from=" + day(-2*24*time.Hour) + "&to=" + day(-2*24*time.Hour), "from"}, // from = to
		{"/api/analytics/usage?from=" + day(-3*24*time.Hour) + "&to=" + day(-5*24*time.Hour), "from"}, // from after to
		{"/api/analytics/routes?from=" + day(-410*24*time.Hour) + "&to=" + day(-300*24*time.Hour), "from"},
		{"/api/analytics/usage?from=yesterday", "from"},
		{"/api/analytics/usage?to=2026-13-01", "to"},
		{"/api/analytics/usage?route=" + url.QueryEscape("/api/nothing/{here}"), "route"},
		{"/api/analytics/usage?route=" + url.QueryEscape("/api/quote/AAPL"), "route"}, // a path, not a template
		{"/api/analytics/usage?plan=gold", "plan"},
		{"/api/analytics/routes?plan=gold", "plan"},
		{"/api/analytics/usage?granularity=week", "granularity"},
		{"/api/analytics/usage?group_by=symbol", "group_by"},
		{"/api/analytics/top-keys?limit=0", "limit"},
		{"/api/analytics/top-keys?limit=101", "limit"},
		{"/api/analytics/quota-events?limit=1001", "limit"},
		{"/api/auth/me/usage/routes?from=" + day(-500*24*time.Hour), "from"},
	} {
		k := op
		if c.path[:13] == "/api/auth/me/" {
			k = pro
		}
		r := e.do(t, "GET", c.path, nil, key(k))
		if r.StatusCode != http.StatusUnprocessableEntity || r.errCode(t) != shariah.EVALIDATION {
			t.Fatalf("%s: %d %s", c.path, r.StatusCode, r.body)
		}
		errs := r.json(t)["detail"].(map[string]any)["errors"].([]any)
		found := false
		for _, fe := range errs {
			loc := fe.(map[string]any)["loc"].([]any)
			if len(loc) == 2 && loc[0] == "query" && loc[1] == c.field {
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: no error on query.%s: %s", c.path, c.field, r.body)
		}
	}
	// A known route template and plan, an RFC 3339 range: accepted.
	q := url.Values{"route": {"/api/quote/{symbol}"}, "plan": {"pro"}, "from": {time.Now().UTC().Add(-48 * time.Hour).Format(time.RFC3339)},
		"to": {time.Now().UTC().Format(time.RFC3339)}, "group_by": {"key"}, "granularity": {"hour"}}
	if r := e.do(t, "GET", "/api/analytics/usage?"+q.Encode(), nil, key(op)); r.StatusCode != 200 {
		t.Fatalf("a good query: %d %s", r.StatusCode, r.body)
	}
}
