package edge_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testcheck"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// waitFor polls cond until it holds, failing the test after the deadline (testcheck.WaitFor).
var waitFor = testcheck.WaitFor

// waitForOr is waitFor whose failure also says what explain returns (the state the condition saw).
var waitForOr = testcheck.WaitForOr

// services reads /api/health's services map. Health must answer without waiting on a hung check: the
// functional bound here (3 s) only catches waiting on one (health took about 5 s when it did); the 50 ms
// target is shown by BenchmarkHealthWithHungClickHouse.
func services(t *testing.T, e *env) (map[string]any, map[string]any) {
	t.Helper()
	start := time.Now()
	h := e.do(t, "GET", "/api/health", nil, nil)
	if took := time.Since(start); took > 3*time.Second || h.StatusCode != 200 {
		t.Fatalf("health: %d after %s: %s", h.StatusCode, took, h.body)
	}
	m := h.json(t)
	return m["services"].(map[string]any), m
}

// TestHealthReadinessAndUsageUnderOutages: ClickHouse hung with SIGSTOP, then Redis stopped. Health
// answers fast and names the right dependency, readiness follows the meter, usage routes answer 503
// with Retry-After (never 500), every request is counted once in usage afterwards, and the outage is
// logged once, not once per request.
func TestHealthReadinessAndUsageUnderOutages(t *testing.T) {
	own := testsvc.MustRedis(t)
	chp, db := ownClickHouse(t, "outage")
	e := setup(t, options{redisURL: own.RedisURL(), db: db})
	k := e.newKey(t, account.PlanPro)
	metered := 0
	get := func(path string) response {
		metered++
		return e.do(t, "GET", path, nil, key(k))
	}
	// The first health call starts the checks and waits only briefly for them: poll until both answered.
	waitFor(t, 10*time.Second, "health reports redis and clickhouse ok at start", func() bool {
		svc, _ := services(t, e)
		return svc["redis"] == "ok" && svc["clickhouse"] == "ok"
	})
	if r := e.do(t, "GET", "/readyz", nil, nil); r.StatusCode != 200 || r.json(t)["ready"] != true {
		t.Fatalf("readyz at start: %d %s", r.StatusCode, r.body)
	}

	// ClickHouse hangs.
	if err := chp.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			chp.Signal(syscall.SIGCONT)
		}
	}()
	waitFor(t, 10*time.Second, "health names clickhouse unavailable", func() bool {
		svc, _ := services(t, e)
		if svc["redis"] != "ok" {
			t.Fatalf("redis reported %v while ClickHouse hangs", svc["redis"])
		}
		return svc["clickhouse"] == "unavailable"
	})
	if r := e.do(t, "GET", "/readyz", nil, nil); r.StatusCode != 200 {
		t.Fatalf("readyz with ClickHouse hung: %d %s (usage is spooled: the edge can serve)", r.StatusCode, r.body)
	}
	for range 20 {
		if r := get("/api/auth/me"); r.StatusCode != 200 {
			t.Fatalf("metered request with ClickHouse hung: %d %s", r.StatusCode, r.body)
		}
	}
	for _, p := range []string{"/api/auth/me/usage/daily", "/api/auth/me/usage/recent", "/api/auth/me/usage/routes"} {
		r := get(p)
		if r.StatusCode != http.StatusServiceUnavailable || r.errCode(t) != shariah.EUNAVAILABLE || r.Header.Get("Retry-After") == "" ||
			r.Header.Get("X-Tokens-Charged") != "0" {
			t.Fatalf("%s with ClickHouse hung: %d %v %s", p, r.StatusCode, r.Header, r.body)
		}
	}
	op := e.newKey(t, account.PlanInternal) // the operator analytics too (another key: k's count stays exact)
	for _, p := range []string{"/api/analytics/usage", "/api/analytics/routes", "/api/analytics/top-keys", "/api/analytics/quota-events"} {
		if r := e.do(t, "GET", p, nil, key(op)); r.StatusCode != http.StatusServiceUnavailable || r.errCode(t) != shariah.EUNAVAILABLE || r.Header.Get("Retry-After") == "" {
			t.Fatalf("%s with ClickHouse hung: %d %v %s", p, r.StatusCode, r.Header, r.body)
		}
	}
	if _, h := services(t, e); h["usage_spool"].(map[string]any)["pending_bytes"].(float64) == 0 {
		t.Fatalf("no events held while ClickHouse hangs: %v", h["usage_spool"])
	}

	// ClickHouse resumes: usage answers again, with every request once.
	if err := chp.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	resumedAt := time.Now()
	var last response
	tries := 0
	waitForOr(t, 30*time.Second, "usage answers after ClickHouse resumes", func() bool {
		metered++
		tries++
		last = e.do(t, "GET", "/api/auth/me/usage/recent?limit=1", nil, key(k))
		return last.StatusCode == 200
	}, func() string {
		svc, h := services(t, e)
		return fmt.Sprintf("%d tries; the last answered %d %s; health: %v, spool %v", tries, last.StatusCode, last.body, svc, h["usage_spool"])
	})
	t.Logf("usage answered %s after ClickHouse resumed (%d tries)", time.Since(resumedAt).Round(time.Millisecond), tries)
	if err := e.writer.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := e.do(t, "GET", "/api/auth/me/usage/daily", nil, key(k))
	if r.StatusCode != 200 {
		t.Fatalf("usage after the outage: %d %s", r.StatusCode, r.body)
	}
	if got := r.json(t)["totals"].(map[string]any)["requests"].(float64); int(got) != metered {
		t.Fatalf("usage counts %v requests, %d were made", got, metered)
	}

	// Redis stops: not ready, health still alive and names it, one log line for the outage.
	own.Stop()
	for range 200 {
		if r := e.do(t, "GET", "/api/auth/me", nil, key(k)); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Fatalf("metered request with Redis down: %d %s", r.StatusCode, r.body)
		}
	}
	rz := e.do(t, "GET", "/readyz", nil, nil)
	if rz.StatusCode != http.StatusServiceUnavailable || rz.json(t)["detail"].(map[string]any)["ready"] != false || rz.Header.Get("Retry-After") == "" {
		t.Fatalf("readyz with Redis down: %d %s", rz.StatusCode, rz.body)
	}
	if svc, h := services(t, e); svc["redis"] != "unavailable" || h["status"] != "degraded" {
		t.Fatalf("health with Redis down: %v", h)
	}
	logs := e.logs.String()
	if n := strings.Count(logs, `"msg":"dependency unavailable","dependency":"redis"`); n != 1 {
		t.Fatalf("%d 'dependency unavailable' lines for one Redis outage, want 1", n)
	}
	if n := strings.Count(logs, `"level":"ERROR"`); n > 3 {
		t.Fatalf("%d ERROR lines for one outage of 200 requests:\n%s", n, logs)
	}
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "readyz after Redis returns", func() bool {
		return e.do(t, "GET", "/readyz", nil, nil).StatusCode == 200
	})
	waitFor(t, 5*time.Second, "the recovery is logged", func() bool {
		return strings.Contains(e.logs.String(), `"msg":"dependency available again","dependency":"redis"`)
	})
}

// TestHealthShowsAFullUsageSpool: with ClickHouse refusing (no table) and a tiny spool, events are
// dropped, counted, and health says so.
func TestHealthShowsAFullUsageSpool(t *testing.T) {
	e := setup(t, options{noMigrate: true, spoolMax: 400})
	k := e.newKey(t, account.PlanPro)
	for range 10 {
		e.do(t, "GET", "/api/auth/me", nil, key(k))
	}
	_, h := services(t, e)
	u := h["usage_spool"].(map[string]any)
	if u["status"] != "full" || u["dropped"].(float64) == 0 || h["status"] != "degraded" {
		t.Fatalf("health with a full spool: %v", h)
	}
	if n := strings.Count(e.logs.String(), "usage spool dropping events"); n != 1 {
		t.Fatalf("%d 'dropping' lines, want 1\n%s", n, e.logs.String())
	}
}
