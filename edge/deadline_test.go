package edge_test

import (
	"net/http"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/redistest"
)

// hangBound is how long a fault test waits for an answer before it fails: a failure bound (the
// request hung), not a measure of speed. The times to answer are logged.
const hangBound = 10 * time.Second

// timedAnswer is one request's answer and how long it took.
type timedAnswer struct {
	path string
	r    response
	took time.Duration
}

// concurrently sends one GET per (path, key) at once and returns the answers, failing the test if any
// has not answered within hangBound.
func concurrently(t *testing.T, e *env, paths []string, keys []account.IssuedKey) []timedAnswer {
	t.Helper()
	out := make([]timedAnswer, len(paths))
	var wg sync.WaitGroup
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			out[i] = timedAnswer{path: paths[i], r: e.do(t, "GET", paths[i], nil, key(keys[i])), took: time.Since(start)}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangBound):
		t.Fatalf("requests still unanswered %s after they were sent (a hung store holds them)", hangBound)
	}
	return out
}

// assertUnavailable checks that every answer is 503 SERVICE_UNAVAILABLE with Retry-After, and
// returns the slowest answer's time.
func assertUnavailable(t *testing.T, what string, as []timedAnswer) time.Duration {
	t.Helper()
	var slowest time.Duration
	for _, a := range as {
		if a.r.StatusCode != http.StatusServiceUnavailable || a.r.errCode(t) != shariah.EUNAVAILABLE || a.r.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: GET %s answered %d %v %s, want 503 with Retry-After", what, a.path, a.r.StatusCode, a.r.Header, a.r.body)
		}
		slowest = max(slowest, a.took)
	}
	return slowest
}

func tookOf(as []timedAnswer) []time.Duration {
	var d []time.Duration
	for _, a := range as {
		d = append(d, a.took.Round(time.Millisecond))
	}
	slices.Sort(d)
	return d
}

// TestHungRedisAnswers503: Redis stopped with SIGSTOP (its connections open and silent, as a hung
// server's) under metered requests of keys the edge has not seen yet (each needs Redis: the key's
// record, the meter): every request answers 503 SERVICE_UNAVAILABLE with Retry-After in the error
// envelope, none hangs (the Redis call deadline, SHARIAH_REDIS_TIMEOUT), and after SIGCONT the same
// requests are served again without a restart. The times to the 503s are logged.
func TestHungRedisAnswers503(t *testing.T) {
	for _, exact := range []bool{false, true} {
		name := "leases"
		if exact {
			name = "exact-meter"
		}
		t.Run(name, func(t *testing.T) {
			srv, _ := redistest.StartWithDefaultPack(t)
			e := setup(t, options{redisURL: srv.RedisURL(), exactMeter: exact, redisTimeout: time.Second})
			paths := []string{"/api/quote/AAPL", "/api/auth/me", "/api/quote/MSFT", "/api/screen/AAPL"}
			var keys []account.IssuedKey
			for range paths {
				keys = append(keys, e.newKey(t, account.PlanPro))
			}
			warm := e.newKey(t, account.PlanPro)
			for _, p := range paths { // the routes' own reads are warm; the keys are not
				if r := e.do(t, "GET", p, nil, key(warm)); r.StatusCode != 200 {
					t.Fatalf("GET %s: %d %s", p, r.StatusCode, r.body)
				}
			}
			if err := srv.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			resumed := false
			defer func() {
				if !resumed {
					srv.Signal(syscall.SIGCONT)
				}
			}()
			first := concurrently(t, e, paths, keys)
			slowest := assertUnavailable(t, "Redis hung", first)
			// a second round, once rueidis has timed calls out on its connections
			second := concurrently(t, e, paths, keys)
			assertUnavailable(t, "Redis still hung", second)
			t.Logf("Redis hung: 503 after %v (first round), %v (second round); slowest %v", tookOf(first), tookOf(second), slowest.Round(time.Millisecond))

			if err := srv.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			resumed = true
			resumedAt := time.Now()
			for i, p := range paths {
				waitFor(t, 30*time.Second, "GET "+p+" served after Redis resumed", func() bool {
					return e.do(t, "GET", p, nil, key(keys[i])).StatusCode == 200
				})
			}
			t.Logf("every route served again %v after SIGCONT", time.Since(resumedAt).Round(time.Millisecond))
		})
	}
}

// TestHungClickHouseUsageAnswers503: ClickHouse stopped with SIGSTOP before the edge has noticed
// (no health check has run since): the first usage queries, several at once (the driver dials new
// connections for all but one, and a new connection's handshake does not follow the request's
// context), each answer 503 with Retry-After in the envelope, within the usage routes' 3 s query
// bound (logged; the failure bound is hangBound). After SIGCONT usage answers again by itself.
func TestHungClickHouseUsageAnswers503(t *testing.T) {
	chp, db := ownClickHouse(t, "hung")
	e := setup(t, options{db: db})
	paths := []string{"/api/auth/me/usage/daily", "/api/auth/me/usage/recent", "/api/auth/me/usage/routes", "/api/auth/me/usage/daily?days=7"}
	var keys []account.IssuedKey
	for _, p := range paths {
		k := e.newKey(t, account.PlanPro)
		keys = append(keys, k)
		if r := e.do(t, "GET", p, nil, key(k)); r.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", p, r.StatusCode, r.body)
		}
	}
	if err := chp.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			chp.Signal(syscall.SIGCONT)
		}
	}()
	first := concurrently(t, e, paths, keys)
	slowest := assertUnavailable(t, "ClickHouse hung", first)
	t.Logf("ClickHouse hung: the first usage queries answered 503 after %v; slowest %v", tookOf(first), slowest.Round(time.Millisecond))

	if err := chp.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	resumedAt := time.Now()
	for i, p := range paths {
		waitFor(t, 30*time.Second, "GET "+p+" served after ClickHouse resumed", func() bool {
			return e.do(t, "GET", p, nil, key(keys[i])).StatusCode == 200
		})
	}
	t.Logf("usage served again %v after SIGCONT", time.Since(resumedAt).Round(time.Millisecond))
}
