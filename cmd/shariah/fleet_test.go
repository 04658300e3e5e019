package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestFleetOnClusters: the service as a fleet on one machine: two edges, two workers and one ingester,
// each its own process, on a Redis Cluster (three masters with a replica each) and a replicated
// ClickHouse (two replicas). A short mixed load through both edges is answered in full and its tokens
// are exact across the edges (meter and usage history); a bulk run completes once with every symbol
// once; the ingest cycle runs once; every process shuts down gracefully on SIGTERM.
func TestFleetOnClusters(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a Redis Cluster, a replicated ClickHouse and five processes")
	}
	rcl := testsvc.MustRedisClusterReplicated(t)
	ch, db := testsvc.ClickHouseClusterDB(t)
	s := newEnvOn(t, rcl.URL())
	s.chURL, s.db = ch.URL(db), db
	cluster := []string{"SHARIAH_CLICKHOUSE_CLUSTER=" + ch.Name, "SHARIAH_LOG_LEVEL=warn"}
	prepare(t, s, cluster...)
	edgeEnv := append([]string{"SHARIAH_BENCH_ROUTES=true"}, cluster...)
	edges := []*edgeProc{startEdge(t, s, edgeEnv...), startEdge(t, s, edgeEnv...)}
	w1, w1logs := startWorker(t, s, cluster...)
	w2, w2logs := startWorker(t, s, cluster...)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "AAPL.csv"), []byte("Date,Open,High,Low,Close,Volume\r\n"+
		"2026-10-29,261.6,265.5,260.3,263.54,58898257\r\n2026-10-30,260.98,264.47,260.48,262.00,55943912\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	feed, _ := filepath.Abs("../../ingest/news/testdata/rss.xml")
	ingest := s.command([]string{"ingest"}, append([]string{"SHARIAH_INGEST_AT_START=true",
		"SHARIAH_PRICES_URL=file://" + data + "/{canonical}.csv", "SHARIAH_PRICE_SYMBOLS=AAPL", "SHARIAH_NEWS_FEEDS=fixture|file://" + feed}, cluster...)...)
	var ingestLogs bytes.Buffer
	ingest.Stderr = &lockedWriter{w: &ingestLogs}
	if err := ingest.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ingest.Process.Kill(); ingest.Wait() })
	a, b := api{t: t, base: edges[0].base}, api{t: t, base: edges[1].base}

	out, err := s.command([]string{"keys", "create", "--email", "fleet@example.com", "--plan", "pro"}, cluster...).Output()
	if err != nil {
		t.Fatal(err)
	}
	pro := strings.TrimSpace(string(out))

	// A short mixed load through both edges: every request answered 200, tokens summed from the headers.
	paths := []string{"/bench/metered", "/api/quote/AAPL", "/api/screen/MSFT", "/api/database/search?q=apple", "/api/suggest?q=ap"}
	var charged, answered atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				e := []api{a, b}[(g+i)%2]
				path := paths[(g*7+i)%len(paths)]
				r := e.do("GET", path, pro, nil)
				if r.err != nil || r.status != 200 {
					t.Errorf("GET %s on %s: %d %s %v", path, e.base, r.status, r.body, r.err)
					return
				}
				answered.Add(1)
				charged.Add(r.tokens())
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Each edge settles its own lease before answering /api/auth/me; the other's within 100 ms.
	usedOn := func(e api) int64 {
		r := e.do("GET", "/api/auth/me", pro, nil)
		if r.status != 200 {
			return -1
		}
		return int64(r.json(t)["quota"].(map[string]any)["tokens_used"].(float64))
	}
	waitFor(t, "tokens_used equal to the tokens charged, read through either edge", func() bool {
		return usedOn(a) == charged.Load() && usedOn(b) == charged.Load()
	})
	// The usage history (through the replicated ClickHouse) holds every request once (the account reads
	// cost nothing).
	waitFor(t, "the usage history to hold the load's tokens", func() bool {
		r := a.do("GET", "/api/auth/me/usage/daily?days=1", pro, nil)
		if r.status != 200 {
			return false
		}
		tot := r.json(t)["totals"].(map[string]any)
		return int64(tot["tokens"].(float64)) == charged.Load()
	})

	// A bulk run on the two workers: completed once, every constituent once.
	run := a.must(202, "POST", "/api/screen-bulk", pro, map[string]any{"index_name": "SP500", "force_refresh": true}).json(t)
	st, seen := waitRun(t, b, pro, run["run_id"].(string))
	if total := int(st["total"].(float64)); total == 0 || len(seen) != total {
		t.Fatalf("run: %d symbols in the results, total %d", len(seen), total)
	}
	for sym, n := range seen {
		if n != 1 {
			t.Fatalf("%s appears %d times in the run", sym, n)
		}
	}

	// The ingest cycle ran once: its sources healthy, each news item stored once.
	waitFor(t, "the ingesters' health", func() bool {
		h := a.do("GET", "/api/screen-bulk/source-health", pro, nil)
		if h.status != 200 {
			return false
		}
		status := map[string]string{}
		for _, src := range h.json(t)["sources"].([]any) {
			m := src.(map[string]any)
			status[m["name"].(string)] = m["status"].(string)
		}
		return status["ingest:prices"] == "ok" && status["ingest:news:fixture"] == "ok"
	})
	news := b.must(200, "GET", "/api/news?page_size=100", pro, nil).json(t)
	items, _ := news["articles"].([]any)
	if len(items) == 0 {
		t.Fatalf("no news stored by the ingest cycle: %v", news)
	}
	titles := map[string]int{}
	for _, it := range items {
		titles[fmt.Sprint(it.(map[string]any)["title"])]++
	}
	for title, n := range titles {
		if n != 1 {
			t.Fatalf("news item %q stored %d times", title, n)
		}
	}

	// Graceful shutdown of every process (SIGTERM: exit status 0 within 30 s).
	procs := map[string]*exec.Cmd{"edge 1": edges[0].cmd, "edge 2": edges[1].cmd, "worker 1": w1, "worker 2": w2, "ingester": ingest}
	for _, c := range procs {
		if err := c.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range procs {
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s did not stop cleanly: %v", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s still running 30 s after SIGTERM", name)
		}
	}
	if t.Failed() {
		t.Logf("edge 1:\n%s\nedge 2:\n%s\nworker 1:\n%s\nworker 2:\n%s\ningester:\n%s", edges[0].logs, edges[1].logs, w1logs, w2logs, ingestLogs.String())
	}
	t.Logf("fleet: %d requests answered, %d tokens, run of %d symbols", answered.Load(), charged.Load(), len(seen))
}
