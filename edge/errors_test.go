package edge_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestEveryErrorCodeOverHTTP reaches each code of the error table (statusOf in errors.go) through
// HTTP, each in the envelope.
func TestEveryErrorCodeOverHTTP(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 10}})
	free := e.newKey(t, account.PlanFree)

	t.Run("400 HTTP_400 unparseable body", func(t *testing.T) {
		r := e.do(t, "POST", "/api/keys/generate", `{"email": `, nil)
		if r.StatusCode != 400 || r.errCode(t) != "HTTP_400" {
			t.Fatalf("%d %s", r.StatusCode, r.body)
		}
	})
	t.Run("401 API_KEY_REQUIRED", func(t *testing.T) {
		r := e.do(t, "GET", "/api/auth/me", nil, nil)
		if r.StatusCode != 401 || r.errCode(t) != "API_KEY_REQUIRED" {
			t.Fatalf("%d %s", r.StatusCode, r.body)
		}
	})
	t.Run("401 INVALID_API_KEY unknown and malformed", func(t *testing.T) {
		unknown, _ := account.NewAPIKey("")
		for _, k := range []string{unknown, "not-a-key", "shr_short"} {
			r := e.do(t, "GET", "/api/auth/me", nil, hdr{"X-API-Key": k})
			if r.StatusCode != 401 || r.errCode(t) != "INVALID_API_KEY" {
				t.Fatalf("%q: %d %s", k, r.StatusCode, r.body)
			}
		}
	})
	t.Run("403 API_KEY_DEACTIVATED", func(t *testing.T) {
		k := e.newKey(t, account.PlanPro)
		if r := e.do(t, "POST", "/api/keys/revoke", map[string]any{"key_prefix": k.Record.Prefix}, key(k)); r.StatusCode != 200 {
			t.Fatalf("revoke: %d %s", r.StatusCode, r.body)
		}
		r := e.do(t, "GET", "/api/auth/me", nil, key(k))
		if r.StatusCode != 403 || r.errCode(t) != "API_KEY_DEACTIVATED" {
			t.Fatalf("%d %s", r.StatusCode, r.body)
		}
	})
	t.Run("404 HTTP_404 unknown route and unknown prefix", func(t *testing.T) {
		for _, p := range []string{"/api/nothing-here", "/nowhere", "/api/auth/me/extra"} {
			r := e.do(t, "GET", p, nil, key(free))
			if r.StatusCode != 404 || r.errCode(t) != "HTTP_404" {
				t.Fatalf("%s: %d %s", p, r.StatusCode, r.body)
			}
		}
		r := e.do(t, "POST", "/api/keys/revoke", map[string]any{"key_prefix": "shr_ZZZZZZZZ"}, key(free))
		if r.StatusCode != 404 || r.errCode(t) != "HTTP_404" {
			t.Fatalf("unknown prefix: %d %s", r.StatusCode, r.body)
		}
	})
	t.Run("405 HTTP_405 with Allow", func(t *testing.T) {
		r := e.do(t, "DELETE", "/api/auth/me", nil, key(free))
		if r.StatusCode != 405 || r.errCode(t) != "HTTP_405" || r.Header.Get("Allow") != "GET" {
			t.Fatalf("%d allow=%q %s", r.StatusCode, r.Header.Get("Allow"), r.body)
		}
		r = e.do(t, "GET", "/api/keys/generate", nil, nil)
		if r.StatusCode != 405 || r.Header.Get("Allow") != "POST" {
			t.Fatalf("GET on a POST route: %d allow=%q", r.StatusCode, r.Header.Get("Allow"))
		}
	})
	t.Run("409 on a second free key for one email", func(t *testing.T) {
		email := uniqueEmail()
		if r := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, nil); r.StatusCode != 200 {
			t.Fatalf("first: %d %s", r.StatusCode, r.body)
		}
		r := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, nil)
		if r.StatusCode != 409 || r.errCode(t) != "HTTP_409" {
			t.Fatalf("second: %d %s", r.StatusCode, r.body)
		}
	})
	t.Run("422 VALIDATION_ERROR with field detail", func(t *testing.T) {
		cases := []struct {
			method, path string
			body         any
			h            hdr
			loc          string
		}{
			{"POST", "/api/keys/generate", map[string]any{"email": "not an email"}, nil, "body.email"},
			{"POST", "/api/keys/generate", map[string]any{"email": 42}, nil, "body.email"},
			{"POST", "/api/keys/generate", map[string]any{}, nil, "body.email"},
			{"GET", "/api/auth/me/usage/daily?days=0", nil, key(free), "query.days"},
			{"GET", "/api/auth/me/usage/daily?days=abc", nil, key(free), "query.days"},
			{"GET", "/api/auth/me/usage/recent?limit=501", nil, key(free), "query.limit"},
			{"POST", "/api/keys/revoke", map[string]any{"key_prefix": "bad"}, key(free), "body.key_prefix"},
		}
		for _, c := range cases {
			r := e.do(t, c.method, c.path, c.body, c.h)
			if r.StatusCode != 422 || r.errCode(t) != "VALIDATION_ERROR" {
				t.Fatalf("%s %s: %d %s", c.method, c.path, r.StatusCode, r.body)
			}
			errs := r.json(t)["detail"].(map[string]any)["errors"].([]any)
			first := errs[0].(map[string]any)
			loc := ""
			for i, p := range first["loc"].([]any) {
				if i > 0 {
					loc += "."
				}
				loc += p.(string)
			}
			if loc != c.loc || first["msg"] == "" || first["type"] == "" {
				t.Fatalf("%s %s: field error %v, want loc %s", c.method, c.path, first, c.loc)
			}
		}
	})
	t.Run("429 QUOTA_EXCEEDED with detail and Retry-After", func(t *testing.T) {
		k := e.newKey(t, account.PlanFree)
		for i := range 5 { // 5 x 10 tokens = the Free allowance of 50
			if r := e.do(t, "GET", "/api/keys/plans", nil, key(k)); r.StatusCode != 200 {
				t.Fatalf("call %d: %d %s", i, r.StatusCode, r.body)
			}
		}
		r := e.do(t, "GET", "/api/keys/plans", nil, key(k))
		if r.StatusCode != 429 || r.errCode(t) != "QUOTA_EXCEEDED" {
			t.Fatalf("%d %s", r.StatusCode, r.body)
		}
		d := r.json(t)["detail"].(map[string]any)
		if d["plan"] != "free" || d["tokens_limit"] != 50.0 || d["tokens_used"] != 50.0 {
			t.Fatalf("detail %v", d)
		}
		ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
		left := time.Until(account.PeriodOf(time.Now()).End)
		if err != nil || ra < 1 || time.Duration(ra)*time.Second > left+2*time.Second {
			t.Fatalf("Retry-After %q, period ends in %s", r.Header.Get("Retry-After"), left)
		}
		if r.Header.Get("X-Tokens-Charged") != "0" || r.Header.Get("X-Tokens-Remaining") != "0" {
			t.Fatalf("token headers on 429: %v", r.Header)
		}
		// A zero-cost route still answers at the limit: the account stays readable.
		if r := e.do(t, "GET", "/api/auth/me", nil, key(k)); r.StatusCode != 200 {
			t.Fatalf("auth/me at the limit: %d", r.StatusCode)
		}
	})
	t.Run("500 INTERNAL_ERROR hides the cause", func(t *testing.T) {
		e.srv.App().Get("/api/test-panic", func(c fiberCtx) error { panic("secret internals: dsn=clickhouse://x") })
		r := e.do(t, "GET", "/api/test-panic", nil, nil)
		m := r.json(t)
		if r.StatusCode != 500 || m["code"] != "INTERNAL_ERROR" || m["message"] != "Internal error." || contains(string(r.body), "secret") {
			t.Fatalf("%d %s", r.StatusCode, r.body)
		}
		if m["detail"].(map[string]any)["request_id"] != r.Header.Get("X-Request-ID") {
			t.Fatalf("500 does not quote the request id: %s", r.body)
		}
		if !contains(e.logs.String(), "secret internals") {
			t.Fatal("the cause was not logged for the operator")
		}
	})
}

// TestFailedRequestIsRefunded: a 5xx after the charge keeps no tokens (ClickHouse without the table
// makes the usage query fail: 503), and so does a 4xx raised by the handler.
func TestFailedRequestIsRefunded(t *testing.T) {
	t.Parallel()
	e := setup(t, options{noMigrate: true, costs: map[string]int{"GET /api/auth/me/usage/daily": 7}})
	k := e.newKey(t, account.PlanFree)
	r := e.do(t, "GET", "/api/auth/me/usage/daily", nil, key(k))
	if r.StatusCode != 503 || r.Header.Get("X-Tokens-Charged") != "0" || r.Header.Get("X-Tokens-Remaining") != "50" {
		t.Fatalf("%d charged=%s remaining=%s %s", r.StatusCode, r.Header.Get("X-Tokens-Charged"), r.Header.Get("X-Tokens-Remaining"), r.body)
	}
	r = e.do(t, "GET", "/api/auth/me/usage/daily?days=1000", nil, key(k))
	if r.StatusCode != 422 || r.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("422 kept its charge: %d %s", r.StatusCode, r.Header.Get("X-Tokens-Charged"))
	}
	st, err := e.store.MeterState(context.Background(), k.Record.Hash, account.PeriodOf(time.Now()))
	if err != nil || st.Used != 0 {
		t.Fatalf("meter after refunds: %+v %v", st, err)
	}
}

// TestMeterDownIs503: with Redis gone, metered routes answer 503 in the envelope, exempt ones still work.
func TestMeterDownIs503(t *testing.T) {
	t.Parallel()
	own := testsvc.MustRedis(t)
	e := setup(t, options{redisURL: own.RedisURL()})
	k := e.newKey(t, account.PlanPro)
	own.Stop()
	r := e.do(t, "GET", "/api/auth/me", nil, key(k))
	if r.StatusCode != http.StatusServiceUnavailable || r.errCode(t) != "SERVICE_UNAVAILABLE" {
		t.Fatalf("%d %s", r.StatusCode, r.body)
	}
	h := e.do(t, "GET", "/api/health", nil, nil)
	if h.StatusCode != 200 || h.json(t)["status"] != "degraded" {
		t.Fatalf("health with redis down: %d %s", h.StatusCode, h.body)
	}
}
