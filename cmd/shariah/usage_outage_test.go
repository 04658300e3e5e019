package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// outageFor is how long the test keeps ClickHouse down: 60 s, longer than the writer's longest retry
// pause (10 s) several times over; SHARIAH_TEST_OUTAGE shortens it for a quick local run.
func outageFor(t *testing.T) time.Duration {
	if v := os.Getenv("SHARIAH_TEST_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return 60 * time.Second
}

// edgeProc is a `shariah serve` (or `shariah all`) child process.
type edgeProc struct {
	cmd  *exec.Cmd
	base string
	mcp  string // the MCP port's base URL (served by `shariah all`)
	logs *bytes.Buffer
}

// startEdge starts `shariah serve` and waits until it answers.
func startEdge(t *testing.T, s *testEnv, env ...string) *edgeProc {
	t.Helper()
	return startProcess(t, s, "serve", env...)
}

// startProcess starts `shariah serve` or `shariah all` with the API (and MCP) on free ports and waits
// until the API answers; env overrides the defaults.
func startProcess(t *testing.T, s *testEnv, subcommand string, env ...string) *edgeProc {
	t.Helper()
	port, _ := testsvc.FreePort()
	mcpPort, _ := testsvc.FreePort()
	logs := &bytes.Buffer{}
	c := s.command([]string{subcommand}, append([]string{fmt.Sprintf("SHARIAH_HTTP_ADDR=127.0.0.1:%d", port),
		fmt.Sprintf("SHARIAH_MCP_ADDR=127.0.0.1:%d", mcpPort), "SHARIAH_ACCESS_LOG=false", "SHARIAH_USAGE_FLUSH_INTERVAL=100ms"}, env...)...)
	c.Stderr = &lockedWriter{w: logs}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e := &edgeProc{cmd: c, base: fmt.Sprintf("http://127.0.0.1:%d", port), mcp: fmt.Sprintf("http://127.0.0.1:%d", mcpPort), logs: logs}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(e.base + "/api/health")
		if err == nil {
			resp.Body.Close()
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("edge never served: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// answered is the set of request ids the edge answered (each answered metered request is one usage event).
type answered struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (a *answered) add(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ids[id] = true
}

func (a *answered) Load() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int64(len(a.ids))
}

var loadSeq atomic.Int64

// meteredLoad sends metered requests from a few clients until stop is closed, each with its own request
// id, and records the ids the edge answered; wait returns when every client has stopped. The accounting
// is exact: a request whose answer the client did not get (the edge may have recorded it) fails the test
// at once, and the client waits a minute before giving up on an answer, far beyond any answer under load.
func meteredLoad(t *testing.T, base, key string, stop <-chan struct{}) (a *answered, wait func()) {
	a = &answered{ids: map[string]bool{}}
	var wg sync.WaitGroup
	client := &http.Client{Timeout: time.Minute}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("load-%d-%d", time.Now().UnixNano(), loadSeq.Add(1))
				req, _ := http.NewRequest("GET", base+"/api/auth/me", nil)
				req.Header.Set("X-API-Key", key)
				req.Header.Set("X-Request-ID", id)
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("request %s got no answer (%v): the edge may have recorded it, the count would be inexact", id, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || resp.Header.Get("X-Request-ID") != id {
					t.Errorf("request %s under load: %d, id %q", id, resp.StatusCode, resp.Header.Get("X-Request-ID"))
					return
				}
				a.add(id)
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	t.Cleanup(wg.Wait)
	return a, wg.Wait
}

func usageOf(t *testing.T, base string) map[string]any {
	t.Helper()
	resp, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h map[string]any
	json.NewDecoder(resp.Body).Decode(&h)
	u, _ := h["usage_spool"].(map[string]any)
	return u
}

// TestUsageSurvivesClickHouseOutageAndKill: ClickHouse stopped for a minute under load, then stopped
// again and the edge killed with SIGKILL while it held events. Every answered request is in the usage
// history exactly once (distinct request ids equal the answers, and the usage route's totals agree).
func TestUsageSurvivesClickHouseOutageAndKill(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	chp, chURL := outageClickHouse(t, s)
	out, err := s.command([]string{"keys", "create", "--email", "outage@example.com", "--plan", "enterprise"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(out))
	first := startEdge(t, s, chURL)

	// 1. A minute without ClickHouse, under load.
	stop := make(chan struct{})
	served, wait := meteredLoad(t, first.base, key, stop)
	time.Sleep(time.Second)
	chp.Stop()
	outage := outageFor(t)
	time.Sleep(outage / 2)
	if u := usageOf(t, first.base); u["status"] != "spooling" || u["pending_bytes"].(float64) == 0 || u["dropped"].(float64) != 0 {
		t.Fatalf("usage spool during the outage: %v", u)
	}
	time.Sleep(outage / 2)
	if err := chp.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	close(stop)
	wait()
	db, err := analytics.Open(chp.ClickHouseURL("outage"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	distinct := distinctIDs(db)
	want := served.Load()
	if want < 1000 {
		t.Fatalf("only %d requests served under load", want)
	}
	waitCount(t, distinct, want, "after a %s outage", outage)
	sameIDs(t, db, served)
	t.Logf("%d requests served across a %s ClickHouse outage, every one in the usage history", want, outage)

	// 2. ClickHouse down again; the edge is killed holding events. A second edge, started before the
	// kill (so it has its own slot), adopts the dead one's events and ships them.
	chp.Stop()
	stop = make(chan struct{})
	more, wait2 := meteredLoad(t, first.base, key, stop)
	time.Sleep(2 * time.Second)
	close(stop)
	wait2()
	second := startEdge(t, s, chURL)
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.cmd.Wait()
	if err := chp.Start(); err != nil {
		t.Fatal(err)
	}
	want += more.Load()
	waitCount(t, distinct, want, "after a kill -9 with ClickHouse down")
	for id := range more.ids {
		served.add(id)
	}
	sameIDs(t, db, served)
	if !strings.Contains(second.logs.String(), "adopted the events of a process that stopped") {
		t.Fatalf("the second edge did not adopt the first one's spool:\n%s", second.logs.String())
	}
	// The usage reads (what the usage routes answer) count each request once, whatever was shipped twice.
	if total := dailyTotal(t, db); total != want {
		t.Fatalf("daily usage counts %d requests; want %d", total, want)
	}
	if n := strings.Count(first.logs.String()+second.logs.String(), `"level":"ERROR"`); n > 6 {
		t.Fatalf("%d ERROR lines for two ClickHouse outages:\n%s", n, first.logs.String())
	}
}

// outageClickHouse starts a ClickHouse of the test's own (stopped at its end), migrated, and returns it
// with the environment setting that points a process at it.
func outageClickHouse(t *testing.T, s *testEnv) (*testsvc.Proc, string) {
	t.Helper()
	chp := testsvc.MustClickHouse(t)
	chURL := "SHARIAH_CLICKHOUSE_URL=" + chp.ClickHouseURL("outage")
	if out, err := s.command([]string{"migrate"}, chURL).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	return chp, chURL
}

// distinctIDs counts the distinct request ids in the usage history (-1 while ClickHouse refuses).
func distinctIDs(db *analytics.DB) func() int64 {
	return func() int64 {
		var n uint64
		if err := db.Conn.QueryRow(context.Background(), "SELECT toUInt64(uniqExact(request_id)) FROM outage.usage_events").Scan(&n); err != nil {
			return -1
		}
		return int64(n)
	}
}

// dailyTotal is the requests the daily usage read (what the usage routes answer) counts for the one
// user of the usage history, since yesterday.
func dailyTotal(t *testing.T, db *analytics.DB) int64 {
	t.Helper()
	var user string
	if err := db.Conn.QueryRow(context.Background(), "SELECT any(user_id) FROM outage.usage_events").Scan(&user); err != nil {
		t.Fatal(err)
	}
	days, err := analytics.UsageReader{DB: db}.DailyUsage(context.Background(), user, time.Now().AddDate(0, 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, d := range days {
		total += d.Requests
	}
	return total
}

// sameIDs checks that the usage history holds exactly the request ids the edge answered.
func sameIDs(t *testing.T, db *analytics.DB, a *answered) {
	t.Helper()
	rows, err := db.Conn.Query(context.Background(), "SELECT DISTINCT request_id FROM outage.usage_events")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		stored[id] = true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id := range a.ids {
		if !stored[id] {
			t.Fatalf("answered request %s is not in the usage history", id)
		}
	}
	for id := range stored {
		if !a.ids[id] {
			t.Fatalf("usage history holds %s, which no client got an answer for", id)
		}
	}
}

// waitCount waits until count() reaches want (and fails if it passes it).
func waitCount(t *testing.T, count func() int64, want int64, what string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		got := count()
		if got == want {
			return
		}
		if got > want {
			t.Fatalf("%d distinct usage events, only %d requests were answered ("+what+")", append([]any{got, want}, args...)...)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d usage events ("+what+")", append([]any{got, want}, args...)...)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
